import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { HANDOVER_CODE_DIGITS, type HandoverResult } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { useApi } from '../../../lib/api-context';
import { ApiError } from '../../../lib/api-transport';
import { errorText } from '../../../lib/error-catalogue';
import { formatReward } from '../../../lib/reward';
import { handOver } from '../api';

interface HandoverEntryProps {
  code: string;
  finderToken: string;
  onHandedOver(result: HandoverResult): void;
  /** The case was closed already (409 CONVERSATION_CLOSED). */
  onClosed(): void;
}

/**
 * The finder's side: the item goes only to someone who can tell the owner's code; the right code closes the case.
 * The server counts wrong codes (429 after HANDOVER_MAX_WRONG_PER_HOUR).
 */
export function HandoverEntry({ code, finderToken, onHandedOver, onClosed }: HandoverEntryProps) {
  const { t, i18n } = useTranslation();
  const api = useApi();
  const id = useId();
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (sending) return;
    setProblem(null);
    setError(null);
    // Read out as "482 913": spaces and dashes are the finder's, not the code's.
    const digits = value.replace(/[\s-]/g, '');
    if (!new RegExp(`^\\d{${HANDOVER_CODE_DIGITS}}$`).test(digits)) return setProblem(t('handover.codeFormat'));
    setSending(true);
    try {
      onHandedOver(await handOver(api, code, digits, finderToken));
    } catch (cause) {
      if (cause instanceof ApiError && cause.status === 422) setProblem(t('handover.wrongCode'));
      else if (cause instanceof ApiError && cause.status === 429) setError(tooManyWrongText(cause.retryAfterSeconds));
      else if (cause instanceof ApiError && cause.code === 'CONVERSATION_CLOSED') onClosed();
      else setError(errorText(t, cause));
    } finally {
      setSending(false);
    }
  };

  const tooManyWrongText = (retryAfterSeconds: number | undefined) => {
    if (!retryAfterSeconds) return t('handover.tooManyWrong');
    const time = new Intl.DateTimeFormat(i18n.resolvedLanguage ?? 'en', { hour: '2-digit', minute: '2-digit' }).format(Date.now() + retryAfterSeconds * 1000);
    return t('handover.tooManyWrongUntil', { time });
  };

  return (
    <section className="handover-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('handover.finderTitle')}</h2>
      <p>{t('handover.finderIntro')}</p>
      <SafetyCard />
      <form noValidate onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor={`${id}-code`}>{t('handover.codeLabel')}</label>
          <input
            id={`${id}-code`}
            className="handover-code-input"
            type="text"
            inputMode="numeric"
            autoComplete="one-time-code"
            // Room for "482 913" as it is read out.
            maxLength={HANDOVER_CODE_DIGITS + 2}
            value={value}
            onChange={(event) => setValue(event.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
          />
          {problem && (
            <p id={`${id}-problem`} className="field__error" role="alert">
              {problem}
            </p>
          )}
        </div>
        <FormError>{error}</FormError>
        <button type="submit" disabled={sending}>
          {t('handover.confirm')}
        </button>
      </form>
    </section>
  );
}

/** The finder's thank-you once the right code closed the case, with the reward now due when the owner set one. */
export function HandoverThanks({ result }: { result: HandoverResult }) {
  const { t, i18n } = useTranslation();
  return (
    <div className="notice notice--success handover-notice" role="status">
      <p>{t('handover.thanks')}</p>
      {result.reward !== undefined && result.reward > 0 && <p>{t('handover.rewardDue', { amount: formatReward(result.reward, i18n.resolvedLanguage ?? 'en') })}</p>}
    </div>
  );
}

/** In place of the message form once the item was handed over; the owner is thanked too. */
export function ConversationClosed({ owner = false }: { owner?: boolean }) {
  const { t } = useTranslation();
  return (
    <div className="notice handover-notice" role="status">
      <p>{t('handover.closed')}</p>
      {owner && <p>{t('handover.ownerThanks')}</p>}
    </div>
  );
}

/** "Staying safe at the hand-over", folded: one tap away, not a wall of text. */
export function SafetyCard() {
  const { t } = useTranslation();
  return (
    <details className="safety-card">
      <summary>{t('handover.safetyTitle')}</summary>
      <ul>
        <li>{t('handover.safetyPublic')}</li>
        <li>{t('handover.safetyAddress')}</li>
        <li>{t('handover.safetyMoney')}</li>
      </ul>
    </details>
  );
}
