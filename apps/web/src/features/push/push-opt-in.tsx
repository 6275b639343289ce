import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Modal } from '../../components/modal';
import { useApi } from '../../lib/api-context';
import { useFlash } from '../../lib/flash';
import { shouldOfferPush, snoozePushOptIn, subscribeToPush, type PushTarget } from './push-subscription';

/**
 * The push opt-in (spec §2, §4): offered once `offer` turns true, unless the browser cannot push, the user refused
 * notifications, or answered the offer in the last hour. Accepting subscribes the finder to the item or the owner as
 * user; a failure is logged, undone and told.
 */
export function PushOptIn({ target, offer }: { target: PushTarget | null; offer: boolean }) {
  const { t, i18n } = useTranslation();
  const api = useApi();
  const flash = useFlash();
  const [open, setOpen] = useState(false);

  useEffect(() => {
    if (offer && target && shouldOfferPush()) setOpen(true);
    // Offered once per page: `target` is a new object on every render.
  }, [offer]);

  if (!open || !target) return null;
  const decline = () => {
    snoozePushOptIn();
    setOpen(false);
  };
  const accept = () => {
    snoozePushOptIn();
    setOpen(false);
    subscribeToPush(api, target, i18n.resolvedLanguage ?? 'en').then(
      () => flash.show('success', 'push.optInDone'),
      (error: unknown) => {
        // Spec §4: push failures are logged (the subscription is already undone).
        // eslint-disable-next-line no-console
        console.error('Push subscription failed', error);
        flash.show('error', 'push.optInFailed');
      },
    );
  };
  return (
    <Modal title={t('push.optInTitle')} onClose={decline}>
      <p>{target.kind === 'owner' ? t('push.optInOwner') : t('push.optInFinder')}</p>
      <div className="actions">
        <button type="button" onClick={accept}>
          {t('push.optInAccept')}
        </button>
        <button type="button" className="button--secondary" onClick={decline}>
          {t('push.optInDecline')}
        </button>
      </div>
    </Modal>
  );
}
