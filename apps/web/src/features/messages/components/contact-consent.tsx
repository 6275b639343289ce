import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConversationState } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { useApi } from '../../../lib/api-context';
import { ApiError } from '../../../lib/api-transport';
import { errorText } from '../../../lib/error-catalogue';
import { usePageQueryCache } from '../../../lib/page-queries';
import { conversationWhose, messageKeys, setContactConsent } from '../api';
import type { Viewer } from './message-bubble';

interface ContactConsentProps {
  code: string;
  viewer: Viewer;
  state: ConversationState;
  /** The finder's token; null for the owner, who names the conversation. */
  finderToken: string | null;
  conversationId?: string;
  /** Both sides agreed: the thread's messages are now shown unmasked. */
  onShared(): void;
}

/**
 * "Contact details": phone numbers, IBANs, e-mail addresses and links stay masked for the other side until both
 * agree; each side may withdraw until then.
 */
export function ContactConsent({ code, viewer, state, finderToken, conversationId, onShared }: ContactConsentProps) {
  const { t } = useTranslation();
  const api = useApi();
  const queries = usePageQueryCache();
  const id = useId();
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const key = messageKeys.conversation(code, conversationWhose(finderToken, conversationId));
  const mine = state.contact_consent[viewer];
  const theirs = state.contact_consent[viewer === 'finder' ? 'owner' : 'finder'];

  const change = async (agree: boolean) => {
    setError(null);
    setSending(true);
    try {
      const changed = await setContactConsent(api, code, agree, finderToken, conversationId);
      queries.setData(key, changed);
      if (changed.contact_shared) onShared();
    } catch (cause) {
      setError(errorText(t, cause));
      // Shared meanwhile (the other side agreed first): what the server holds now.
      if (cause instanceof ApiError && cause.code === 'CONTACT_ALREADY_SHARED') queries.invalidate(key);
    } finally {
      setSending(false);
    }
  };

  const status = state.contact_shared ? 'handover.consentShared' : mine ? 'handover.consentYou' : theirs ? 'handover.consentOther' : 'handover.consentNone';
  return (
    <section className="handover-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('handover.consentTitle')}</h2>
      <p className="muted">{t('handover.consentIntro')}</p>
      <p className="handover-panel__status" aria-live="polite">
        {t(status)}
      </p>
      <FormError>{error}</FormError>
      {!state.contact_shared && (
        <button type="button" className={mine ? 'button--secondary' : undefined} onClick={() => void change(!mine)} disabled={sending}>
          {mine ? t('handover.withdraw') : t('handover.agree')}
        </button>
      )}
    </section>
  );
}
