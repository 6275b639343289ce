import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import type { ClaimResponse, PublicItem, TokenResponse } from '@homing/contracts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@homing/contracts';

import { FormError } from '../../components/form/form-field';
import { PageTitle } from '../../components/page-title';
import { useSession } from '../../features/auth/session';
import { ApiError } from '../../lib/api-client';
import { useApi } from '../../lib/api-context';
import { rewardsEnabled } from '../../lib/config';
import { errorText } from '../../lib/error-catalogue';

export type ActivationStep = 'enterEmail' | 'confirmEmail' | 'setPassword' | 'doneNewUser' | 'doneExistingUser' | 'alreadyActivated';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** `/activate/{code}`: the owner of a new tag makes it theirs with an e-mail address (spec §2 and §4). */
export function ActivatePage() {
  const { t } = useTranslation();
  const { code = '' } = useParams();
  const api = useApi();
  const item = useQuery({ queryKey: ['activate', code], queryFn: () => api.request<PublicItem>('GET', `/items/${encodeURIComponent(code)}`), gcTime: 0 });

  if (item.isPending) return <p role="status">{t('common.loading')}</p>;
  if (item.error instanceof ApiError && item.error.status === 404) return <TagNotFound code={code} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  return <Activation code={code} alreadyActivated={item.data.activated} />;
}

function TagNotFound({ code }: { code: string }) {
  const { t } = useTranslation();
  return (
    <section className="page">
      <PageTitle title={t('activate.notFoundTitle')} />
      <h1>{t('activate.notFoundTitle')}</h1>
      <p>{t('itemForm.notFoundText', { code })}</p>
      <p>
        <Link to="/contact">{t('common.contactUs')}</Link>
      </p>
    </section>
  );
}

function Activation({ code, alreadyActivated }: { code: string; alreadyActivated: boolean }) {
  const { t } = useTranslation();
  const api = useApi();
  const navigate = useNavigate();
  const { user } = useSession();
  const [step, setStep] = useState<ActivationStep>(alreadyActivated ? 'alreadyActivated' : 'enterEmail');
  const [email, setEmail] = useState('');
  const [passwordToken, setPasswordToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [gone, setGone] = useState(false);

  const claim = async () => {
    setError(null);
    setBusy(true);
    // Logged in: the gateway claims with the token's e-mail and ignores the body's.
    const loggedIn = user !== null;
    try {
      const answer = await api.request<ClaimResponse>('POST', '/claim', { body: loggedIn ? { code } : { code, email } });
      if (answer.response_code === 'NEW_USER_REGISTERED') {
        setPasswordToken(answer.password_token);
        if (answer.login_token) api.setToken(answer.login_token);
        setStep('setPassword');
      } else if (answer.response_code === 'ITEM_CLAIMED_SUCCESFULLY') {
        // A logged-out existing user logs in first, and lands on the item to name it.
        if (loggedIn) setStep('doneExistingUser');
        else void navigate(`/login?ec=${encodeURIComponent(code)}&email=${encodeURIComponent(email)}`);
      } else {
        setError(t('errors.unexplained'));
      }
    } catch (cause) {
      if (cause instanceof ApiError && cause.code === 'ALREADY_CLAIMED') setStep('alreadyActivated');
      else if (cause instanceof ApiError && cause.status === 404) setGone(true);
      // Spec §8: the only input is the e-mail, so a validation error is about it.
      else if (cause instanceof ApiError && (cause.code === 'VALIDATION_ERROR' || cause.status === 422)) setError(t('validation.emailInvalid'));
      else setError(errorText(t, cause));
    } finally {
      setBusy(false);
    }
  };

  if (gone) return <Navigate to="/not-found" replace />;
  const title =
    step === 'alreadyActivated'
      ? t('activate.alreadyTitle')
      : step === 'setPassword'
        ? t('activate.setPasswordTitle')
        : step === 'doneNewUser' || step === 'doneExistingUser'
          ? t('activate.doneTitle')
          : step === 'confirmEmail'
            ? t('activate.confirmTitle')
            : t('activate.title');

  return (
    <section className="page page--narrow">
      <PageTitle title={title} />
      <h1>{title}</h1>
      {step === 'enterEmail' && (
        <EnterEmail
          loggedInEmail={user?.email}
          email={email}
          busy={busy}
          error={error}
          onSubmit={(typed) => {
            setError(null);
            if (user) return void claim();
            setEmail(typed);
            setStep('confirmEmail');
          }}
        />
      )}
      {step === 'confirmEmail' && (
        <>
          <p>{t('activate.confirmText', { email })}</p>
          <p className="confirm-email">
            <strong>{email}</strong>
          </p>
          <FormError>{error}</FormError>
          <div className="actions">
            <button type="button" className="button--secondary" onClick={() => setStep('enterEmail')}>
              {t('activate.back')}
            </button>
            <button type="button" onClick={() => void claim()} disabled={busy}>
              {t('activate.confirm')}
            </button>
          </div>
        </>
      )}
      {step === 'setPassword' && <SetPassword passwordToken={passwordToken} onDone={() => setStep('doneNewUser')} />}
      {(step === 'doneNewUser' || step === 'doneExistingUser') && (
        <>
          <p>{step === 'doneNewUser' ? t('activate.doneNewUser') : t('activate.doneExistingUser')}</p>
          <p>
            <Link className="button" to={`/item/${code}`}>
              {t('activate.nameItem')}
            </Link>
          </p>
          {rewardsEnabled && <p className="muted">{t('activate.rewardPrompt')}</p>}
        </>
      )}
      {step === 'alreadyActivated' && (
        <>
          <p>{t('activate.alreadyText')}</p>
          <div className="actions">
            <Link className="button" to={`/found/${code}`}>
              {t('activate.contactOwner')}
            </Link>
            {!user && (
              <Link className="button button--secondary" to={`/login?c=${encodeURIComponent(code)}`}>
                {t('nav.logIn')}
              </Link>
            )}
          </div>
        </>
      )}
    </section>
  );
}

interface EnterEmailProps {
  loggedInEmail?: string;
  email: string;
  busy: boolean;
  error: string | null;
  onSubmit(email: string): void;
}

function EnterEmail({ loggedInEmail, email, busy, error, onSubmit }: EnterEmailProps) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState(email);
  const [invalid, setInvalid] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (loggedInEmail) return onSubmit(loggedInEmail);
    const value = typed.trim();
    if (!value) return setInvalid(t('validation.required'));
    if (!EMAIL.test(value)) return setInvalid(t('validation.emailInvalid'));
    setInvalid(null);
    onSubmit(value);
  };
  return (
    <form noValidate onSubmit={submit}>
      <p>{loggedInEmail ? t('activate.introLoggedIn', { email: loggedInEmail }) : t('activate.intro')}</p>
      {!loggedInEmail && (
        <div className="field">
          <label htmlFor="activate-email">{t('common.email')}</label>
          <input
            id="activate-email"
            type="email"
            autoComplete="email"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            aria-invalid={invalid ? true : undefined}
            aria-describedby={invalid ? 'activate-email-error' : undefined}
          />
          {invalid && (
            <p id="activate-email-error" className="field__error" role="alert">
              {invalid}
            </p>
          )}
        </div>
      )}
      <FormError>{error}</FormError>
      <button type="submit" disabled={busy}>
        {t('activate.submit')}
      </button>
    </form>
  );
}

/** setPassword: optional; an empty password skips the call (spec §4). */
function SetPassword({ passwordToken, onDone }: { passwordToken: string; onDone(): void }) {
  const { t } = useTranslation();
  const api = useApi();
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!password) return onDone();
    if (password.length < PASSWORD_MIN_LENGTH) return setProblem(t('validation.passwordTooShort', { minLength: PASSWORD_MIN_LENGTH }));
    if (password.length > PASSWORD_MAX_LENGTH) return setProblem(t('validation.passwordTooLong', { maxLength: PASSWORD_MAX_LENGTH }));
    setBusy(true);
    setProblem(null);
    try {
      const { token } = await api.request<TokenResponse>('POST', '/user/password', { body: { token: passwordToken, password } });
      api.setToken(token);
      onDone();
    } catch (cause) {
      setProblem(errorText(t, cause));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form noValidate onSubmit={(event) => void submit(event)}>
      <p>{t('activate.setPasswordText')}</p>
      <div className="field">
        <label htmlFor="activate-password">{t('activate.passwordOptional')}</label>
        <input
          id="activate-password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'activate-password-error' : undefined}
        />
        {problem && (
          <p id="activate-password-error" className="field__error" role="alert">
            {problem}
          </p>
        )}
      </div>
      <button type="submit" disabled={busy}>
        {t('activate.finish')}
      </button>
    </form>
  );
}

export { ActivatePage as Component };
