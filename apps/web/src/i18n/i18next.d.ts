import 'i18next';

import type { resources } from './resources';

// Makes t('some.key') a compile error when the key is missing from en.json.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: (typeof resources)['en'];
  }
}
