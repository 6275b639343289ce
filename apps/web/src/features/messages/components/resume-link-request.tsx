import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { useApi } from '../../../lib/api-context';
import { errorText } from '../../../lib/error-catalogue';
import { requestResumeLink } from '../api';
import { takeResumeRequestUnfolded } from '../prerendered-draft';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * For a finder whose conversation lives in another browser: their address, to be e-mailed a link to it. Folded away
 * unless `open` (a link that expired), so a first-time finder sees only the message form.
 */
export function ResumeLinkRequest({ code, open = false }: { code: string; open?: boolean }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useId();
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);
  // A finder who unfolded it on the page the app replaced finds it unfolded still.
  const [unfoldedBefore] = useState(takeResumeRequestUnfolded);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (sending) return;
    if (!EMAIL.test(email.trim())) return setProblem(t('validation.emailInvalid'));
    setProblem(null);
    setError(null);
    setSending(true);
    try {
      await requestResumeLink(api, code, email.trim());
      setSent(true);
    } catch (failure) {
      setError(errorText(t, failure));
    } finally {
      setSending(false);
    }
  };

  return (
    <details className="resume-link" open={open || unfoldedBefore}>
      <summary>{t('resumeLink.summary')}</summary>
      {sent ? (
        <p role="status">{t('resumeLink.sent')}</p>
      ) : (
        <form noValidate onSubmit={(event) => void submit(event)}>
          <div className="field">
            <label htmlFor={`${id}-email`}>{t('resumeLink.email')}</label>
            <p id={`${id}-hint`} className="field__hint">
              {t('resumeLink.hint')}
            </p>
            <input
              id={`${id}-email`}
              type="email"
              autoComplete="email"
              value={email}
              onChange={(event) => setEmail(event.target.value)}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-hint ${id}-problem` : `${id}-hint`}
            />
            {problem && (
              <p id={`${id}-problem`} className="field__error" role="alert">
                {problem}
              </p>
            )}
          </div>
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="button--secondary" disabled={sending}>
            {t('resumeLink.send')}
          </button>
        </form>
      )}
    </details>
  );
}
