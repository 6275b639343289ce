import { useTranslation } from 'react-i18next';
import type { PublicItem } from '@homing/contracts';

import { ConfirmModal, Modal } from '../../../components/modal';
import { forgetConversation, resetItem } from '../api';
import { useApi } from '../../../lib/api-context';
import { rewardsEnabled } from '../../../lib/config';
import { errorKey } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { formatReward } from '../../../lib/reward';

/** Reset after a confirmation: every conversation goes, so the next finder starts afresh (spec §4). */
export function ResetModal({ code, onClose, onReset }: { code: string; onClose(): void; onReset(): void }) {
  const { t } = useTranslation();
  const api = useApi();
  const flash = useFlash();
  return (
    <ConfirmModal
      title={t('found.resetTitle')}
      text={t('found.resetText')}
      confirmLabel={t('found.resetConfirm')}
      cancelLabel={t('common.cancel')}
      action={async () => {
        await resetItem(api, code);
        onReset();
        flash.show('success', 'found.resetDone');
        onClose();
      }}
      onError={(error) => flash.show('error', errorKey(error))}
      onClose={onClose}
    />
  );
}

/**
 * A finder deletes their conversation after a confirmation: their messages, address and tokens are erased at once,
 * and the owner sees that they left.
 */
export function ForgetConversationModal({ code, finderToken, onClose, onForgotten }: { code: string; finderToken: string; onClose(): void; onForgotten(): void }) {
  const { t } = useTranslation();
  const api = useApi();
  const flash = useFlash();
  return (
    <ConfirmModal
      title={t('found.forgetTitle')}
      text={t('found.forgetText')}
      confirmLabel={t('found.forgetConfirm')}
      cancelLabel={t('common.cancel')}
      action={async () => {
        await forgetConversation(api, code, finderToken);
        onForgotten();
      }}
      onError={(error) => flash.show('error', errorKey(error))}
      onClose={onClose}
    />
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
