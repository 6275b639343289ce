import { useEffect } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { PublicItem } from '@homing/contracts';

import { PageTitle } from '../../../components/page-title';
import { RequireLogin } from '../../../components/require-login';
import { useFoundFlags, useOwnedItems } from '../../../features/items/api';
import { LostToggle } from '../../../features/items/components/lost-mode';
import { QrImage } from '../../../features/items/components/qr-image';
import { rewardsEnabled } from '../../../lib/config';
import { useFlash } from '../../../lib/flash';
import { formatReward } from '../../../lib/reward';

/** The owner's items: also where a login lands. */
export function MyItemsPage() {
  return (
    <RequireLogin>
      <MyItems />
    </RequireLogin>
  );
}

function MyItems() {
  const { t } = useTranslation();
  const items = useOwnedItems();
  const found = useFoundFlags(items.data?.map((item) => item.code) ?? []);
  const { show: showFlash } = useFlash();

  useEffect(() => {
    if (items.isError) showFlash('error', 'items.fetchFailed');
  }, [items.isError, showFlash, t]);

  return (
    <section className="page page--wide">
      <PageTitle title={t('items.title')} />
      <div className="page-heading">
        <h1>{t('items.title')}</h1>
        <Link className="button" to="/add-item">
          {t('items.add')}
        </Link>
      </div>
      {items.isPending && <p role="status">{t('common.loading')}</p>}
      {items.data?.length === 0 && (
        <p className="intro">
          {/* The promise to print a QR code: an added item's page has the PNG and the print page. */}
          <Trans i18nKey="items.intro" components={{ add: <Link to="/add-item" /> }} />
        </p>
      )}
      {items.data && items.data.length > 0 && (
        <ul className="item-grid">
          {items.data.map((item) => (
            <ItemCard key={item.code} item={item} found={found.data?.[item.code] === true} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ItemCard({ item, found }: { item: PublicItem; found: boolean }) {
  const { t, i18n } = useTranslation();
  // A named item opens its found page (the thread); an unnamed one is not set up yet, so it opens the editor.
  const target = item.name ? `/found/${item.code}` : `/item/${item.code}`;
  return (
    <li className="item-card">
      <Link to={target} className="item-card__link">
        <span className="item-card__qr">
          <QrImage code={item.code} size={120} decorative />
          {found && <span className="item-card__found">{t('items.found')}</span>}
        </span>{' '}
        <span className="item-card__name">{item.name || t('items.noName')}</span>
      </Link>
      {item.lost && <span className="item-card__lost">{t('items.lost')}</span>}
      {/* Shared by its owner with co-owners, or with this person by its owner. */}
      {item.role === 'co-owner' ? (
        <span className="item-card__shared">{t('items.sharedWithYou')}</span>
      ) : (
        item.shared && <span className="item-card__shared">{t('items.shared')}</span>
      )}
      <span className="item-card__code">{item.code}</span>
      {rewardsEnabled && item.reward !== undefined && item.reward > 0 && (
        <span className="item-card__reward">{t('items.reward', { amount: formatReward(item.reward, i18n.resolvedLanguage ?? 'en') })}</span>
      )}
      <div className="item-card__actions">
        <Link to={`/item/${item.code}`} className="item-card__edit" aria-label={`${t('items.edit')}: ${item.name || t('items.noName')}`}>
          {t('items.edit')}
        </Link>
        <LostToggle item={item} named />
      </div>
    </li>
  );
}

export { MyItemsPage as Component };
