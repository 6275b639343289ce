import { useTranslation } from 'react-i18next';

export function LandingPage() {
  const { t } = useTranslation();
  const productName = t('common.productName');

  return (
    <section className="page landing">
      <title>{productName}</title>
      <h1>{productName}</h1>
      <p className="landing__tagline">{t('landing.tagline')}</p>
    </section>
  );
}
