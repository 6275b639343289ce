import { Outlet } from 'react-router';

import { MainLayout } from '../main-layout';

export function RootRoute() {
  return (
    <MainLayout>
      <Outlet />
    </MainLayout>
  );
}
