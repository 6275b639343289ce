import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { PageTitle } from '../../../components/page-title';

/** A page for a code no item has: the finder page, activation and the item editor show it alike. */
export function ItemNotFound({ code, title }: { code: string; title?: string }) {
  const { t } = useTranslation();
  const heading = title ?? t('itemForm.notFoundTitle');
  return (
    <section className="page">
      <PageTitle title={heading} />
      <h1>{heading}</h1>
      <p>{t('itemForm.notFoundText', { code })}</p>
      <p>
        <Link to="/contact">{t('common.contactUs')}</Link>
      </p>
    </section>
  );
}
