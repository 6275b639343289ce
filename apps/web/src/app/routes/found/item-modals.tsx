import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PublicItem } from '@homing/contracts';

import { Modal } from '../../../components/modal';
import { resetItem } from '../../../features/messages/api';
import { useApi } from '../../../lib/api-context';
import { rewardsEnabled } from '../../../lib/config';
import { errorText } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { formatReward } from '../../../lib/reward';

/** Reset after a confirmation: every conversation goes, so the next finder starts afresh (spec §4). */
export function ResetModal({ code, onClose, onReset }: { code: string; onClose(): void; onReset(): void }) {
  const { t } = useTranslation();
  const api = useApi();
  const flash = useFlash();
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await resetItem(api, code);
      onReset();
      flash.show('success', t('found.resetDone'));
    } catch (error) {
      flash.show('error', errorText(t, error));
    } finally {
      setBusy(false);
      onClose();
    }
  };
  return (
    <Modal title={t('found.resetTitle')} onClose={onClose} role="alertdialog">
      <p>{t('found.resetText')}</p>
      <div className="actions">
        <button type="button" className="button--danger" onClick={() => void confirm()} disabled={busy}>
          {t('found.resetConfirm')}
        </button>
        <button type="button" className="button--secondary" onClick={onClose}>
          {t('common.cancel')}
        </button>
      </div>
    </Modal>
  );
}

/** 'I have my item back': offers the reset, and shows the reward when one is set. */
export function ItemBackModal({ item, hasMessages, onClose, onReset }: { item: PublicItem; hasMessages: boolean; onClose(): void; onReset(): void }) {
  const { t, i18n } = useTranslation();
  const reward = rewardsEnabled && item.reward !== undefined && item.reward > 0 ? item.reward : 0;
  return (
    <Modal title={t('found.itemBackTitle')} onClose={onClose}>
      <p>{t('found.itemBackText')}</p>
      {reward > 0 && <p>{t('found.itemBackReward', { amount: formatReward(reward, i18n.resolvedLanguage ?? 'en') })}</p>}
      <div className="actions">
        {hasMessages && (
          <button type="button" className="button--danger" onClick={onReset}>
            {t('found.reset')}
          </button>
        )}
        {reward > 0 && (
          <a className="button" href={`mailto:support@homing.example?subject=${encodeURIComponent(`Reward ${item.code}`)}`}>
            {t('found.requestPaymentDetails')}
          </a>
        )}
        <button type="button" className="button--secondary" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
    </Modal>
  );
}
