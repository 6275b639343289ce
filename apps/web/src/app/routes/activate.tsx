import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';
import { z } from 'zod';

import { FormError } from '../../components/form/form-error';
import { FormField } from '../../components/form/form-field';
import { PageTitle } from '../../components/page-title';
import { OptionalPassword } from '../../features/auth/components/optional-password';
import { useClaimItem } from '../../features/items/api';
import { usePublicItem } from '../../features/items/public-item';
import { ItemNotFound } from '../../features/items/components/item-not-found';
import { ApiError, isNotFound } from '../../lib/api-transport';
import { rewardsEnabled } from '../../lib/config';
import { errorText } from '../../lib/error-catalogue';
import { emailField } from '../../lib/form-schemas';
import { useSession } from '../../lib/session';

export type ActivationStep = 'enterEmail' | 'confirmEmail' | 'setPassword' | 'doneNewUser' | 'doneExistingUser' | 'alreadyActivated';

/** `/activate/{code}`: the owner of a new tag makes it theirs with an e-mail address (spec §2 and §4). */
export function ActivatePage() {
  const { t } = useTranslation();
  const { code = '' } = useParams();
  const item = usePublicItem(code);

  if (item.isPending) return <p role="status">{t('common.loading')}</p>;
  if (isNotFound(item.error)) return <ItemNotFound code={code} title={t('activate.notFoundTitle')} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  return <Activation code={code} alreadyActivated={item.data.activated} />;
}

function Activation({ code, alreadyActivated }: { code: string; alreadyActivated: boolean }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const claimItem = useClaimItem();
  const [step, setStep] = useState<ActivationStep>(alreadyActivated ? 'alreadyActivated' : 'enterEmail');
  const [email, setEmail] = useState('');
  const [passwordToken, setPasswordToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const busy = claimItem.isPending;
  const [gone, setGone] = useState(false);
  // An existing user who activated while logged out: told to log in to name the item.
  const [mustLogIn, setMustLogIn] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  // On the confirmation, Enter confirms: the button has the focus (Back is a Tab away).
  useEffect(() => {
    if (step === 'confirmEmail') confirmButton.current?.focus();
  }, [step]);

  const claim = async () => {
    setError(null);
    // Logged in: the gateway claims with the token's e-mail and ignores the body's.
    const loggedIn = user !== null;
    try {
      const answer = await claimItem.mutateAsync(loggedIn ? { code } : { code, email });
      if (answer.response_code === 'NEW_USER_REGISTERED') {
        setPasswordToken(answer.password_token);
        setStep('setPassword');
      } else if (answer.response_code === 'ITEM_CLAIMED_SUCCESFULLY') {
        // A logged-out existing user is told the tag is theirs, and logs in (then lands on the item) to name it.
        setMustLogIn(!loggedIn);
        setStep('doneExistingUser');
      } else {
        setError(t('errors.unexplained'));
      }
    } catch (cause) {
      if (cause instanceof ApiError && cause.code === 'ALREADY_CLAIMED') setStep('alreadyActivated');
      else if (isNotFound(cause)) setGone(true);
      // Spec §8: the only input is the e-mail, so a validation error is about it.
      else if (cause instanceof ApiError && (cause.code === 'VALIDATION_ERROR' || cause.status === 422)) setError(t('validation.emailInvalid'));
      else setError(errorText(t, cause));
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
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            if (!busy) void claim();
          }}
        >
          <p>{t('activate.confirmText', { email })}</p>
          <p className="confirm-email">
            <strong>{email}</strong>
          </p>
          <FormError>{error}</FormError>
          <div className="actions">
            <button type="button" className="button--secondary" onClick={() => setStep('enterEmail')}>
              {t('activate.back')}
            </button>
            <button type="submit" ref={confirmButton} disabled={busy}>
              {t('activate.confirm')}
            </button>
          </div>
        </form>
      )}
      {step === 'setPassword' && <OptionalPassword passwordToken={passwordToken} onDone={() => setStep('doneNewUser')} />}
      {step === 'doneExistingUser' && mustLogIn && (
        <>
          <p>{t('activateLogIn.text')}</p>
          <p>
            <Link className="button" to={`/login?ec=${encodeURIComponent(code)}&email=${encodeURIComponent(email)}`}>
              {t('activateLogIn.link')}
            </Link>
          </p>
        </>
      )}
      {(step === 'doneNewUser' || (step === 'doneExistingUser' && !mustLogIn)) && (
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
  const schema = useMemo(() => z.object({ email: emailField(t) }), [t]);
  // The error stays until the next try, as on the other steps.
  const form = useForm<{ email: string }>({ resolver: zodResolver(schema), defaultValues: { email }, reValidateMode: 'onSubmit' });
  const submit = loggedInEmail
    ? (event: FormEvent) => {
        event.preventDefault();
        onSubmit(loggedInEmail);
      }
    : form.handleSubmit((values) => onSubmit(values.email));
  return (
    <form noValidate onSubmit={(event) => void submit(event)}>
      <p>{loggedInEmail ? t('activate.introLoggedIn', { email: loggedInEmail }) : t('activate.intro')}</p>
      {!loggedInEmail && (
        <FormField label={t('common.email')} type="email" autoComplete="email" form={form} name="email" />
      )}
      <FormError>{error}</FormError>
      <button type="submit" disabled={busy}>
        {t('activate.submit')}
      </button>
    </form>
  );
}

export { ActivatePage as Component };
