import { useTranslation } from 'react-i18next';

import { PageTitle } from '../../../components/page-title';

/** Registration is off in the interface (spec §2): accounts come from activating a tag. */
export function RegisterPage() {
  const { t } = useTranslation();
  return (
    <section className="page page--narrow">
      <PageTitle title={t('register.title')} />
      <h1>{t('register.title')}</h1>
      <p>{t('register.disabled')}</p>
    </section>
  );
}

export { RegisterPage as Component };
