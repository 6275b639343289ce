import { useTranslation } from 'react-i18next';

/** The document title: the page's, then the product's name (React 19 hoists <title> into <head>). */
export function PageTitle({ title }: { title: string }) {
  const { t } = useTranslation();
  return <title>{`${title} · ${t('common.productName')}`}</title>;
}
