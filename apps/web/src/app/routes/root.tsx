import { Outlet } from 'react-router';

import { MainLayout } from '../../components/layouts/main-layout';

export function RootRoute() {
  return (
    <MainLayout>
      <Outlet />
    </MainLayout>
  );
}
