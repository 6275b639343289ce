import { useTranslation } from 'react-i18next';

import { PageTitle } from '../../../components/page-title';

export function ContactPage() {
  const { t } = useTranslation();
  return (
    <section className="page">
      <PageTitle title={t('contact.title')} />
      <h1>{t('contact.title')}</h1>
      <p>{t('contact.text')}</p>
    </section>
  );
}

export { ContactPage as Component };
