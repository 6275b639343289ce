import { useTranslation } from 'react-i18next';

import { PageTitle } from '../../../components/page-title';

export function AboutPage() {
  const { t } = useTranslation();
  return (
    <section className="page">
      <PageTitle title={t('about.title')} />
      <h1>{t('about.title')}</h1>
      <p>{t('about.text')}</p>
    </section>
  );
}

export { AboutPage as Component };
