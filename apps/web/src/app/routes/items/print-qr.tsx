import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { formatTagCode, parseTagCode } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { PageTitle } from '../../../components/page-title';
import { RequireLogin } from '../../../components/require-login';
import { useOwnedItem } from '../../../features/items/api';
import { ItemNotFound } from '../../../features/items/components/item-not-found';
import { QrImage } from '../../../features/items/components/qr-image';
import { isNotFound } from '../../../lib/api-transport';
import { errorText } from '../../../lib/error-catalogue';

/** The two sizes of a printed label: one for a bag or a case, one for keys or a small device (printed in cm). */
export const PRINT_SIZES = [
  { name: 'large', screenPx: 240 },
  { name: 'small', screenPx: 120 },
] as const;

/** `/item/{code}/print`: the owner's tag as labels to print, its QR code and its code at two sizes. */
export function PrintQrPage() {
  return (
    <RequireLogin>
      <PrintQr />
    </RequireLogin>
  );
}

function PrintQr() {
  const { code = '' } = useParams();
  const item = useOwnedItem(code);
  const { t } = useTranslation();

  if (item.isPending) return <p role="status">{t('common.loading')}</p>;
  if (isNotFound(item.error)) return <ItemNotFound code={code} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  const canonical = parseTagCode(item.data.code) ?? item.data.code;
  const grouped = formatTagCode(canonical);
  const title = t('ownerQr.printTitle');

  return (
    <section className="page page--wide print-sheet">
      <PageTitle title={title} />
      <div className="print-sheet__intro">
        <h1>{title}</h1>
        <p>{t('ownerQr.printIntro', { name: item.data.name || t('items.noName') })}</p>
        <div className="actions">
          {/* The print dialog opens on the owner's click only, never by itself. */}
          <button type="button" onClick={() => window.print()}>
            {t('ownerQr.printButton')}
          </button>
          <Link className="button button--secondary" to={`/item/${grouped}`}>
            {t('ownerQr.backToItem')}
          </Link>
        </div>
      </div>
      <ul className="print-sheet__labels" aria-label={t('ownerQr.labels')}>
        {PRINT_SIZES.map(({ name, screenPx }) => (
          <li key={name} className={`print-label print-label--${name}`} data-size={name}>
            <QrImage code={grouped} size={screenPx} />
            <p className="print-label__scan">{t('ownerQr.scanMe')}</p>
            <p className="print-label__code">
              <code className="tag-code">{grouped}</code>
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}

export { PrintQrPage as Component };
