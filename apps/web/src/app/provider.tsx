import type { i18n } from 'i18next';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';

// Everything the pages rely on besides the router; tests wrap the same providers (src/testing).
export function AppProvider({ i18n, children }: { i18n: i18n; children: ReactNode }) {
  return <I18nextProvider i18n={i18n}>{children}</I18nextProvider>;
}
