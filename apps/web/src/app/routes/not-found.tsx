import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

export function NotFoundPage() {
  const { t } = useTranslation();
  const title = t('notFound.title');

  return (
    <section className="page">
      <title>{`${title} · ${t('common.productName')}`}</title>
      <h1>{title}</h1>
      <p>{t('notFound.text')}</p>
      <p>
        <Link to="/">{t('common.backToHome')}</Link>
      </p>
    </section>
  );
}
