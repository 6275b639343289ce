import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import type { Invitation, InvitationAccepted } from '@homing/contracts';

import { FormError } from '../../components/form/form-error';
import { PageTitle } from '../../components/page-title';
import { OptionalPassword } from '../../features/auth/components/optional-password';
import { useAcceptInvitation, useInvitation } from '../../features/items/api';
import { ApiError, isNotFound } from '../../lib/api-transport';
import { errorText } from '../../lib/error-catalogue';
import { useFlash } from '../../lib/flash';
import { useSession } from '../../lib/session';

/** A link that no longer works: unknown, used, withdrawn or expired all answer the same (422 INVITATION_EXPIRED). */
const isExpired = (error: unknown) => error instanceof ApiError && (error.code === 'INVITATION_EXPIRED' || error.status === 422 || isNotFound(error));

/**
 * `/invite/{token}`: the link of an e-mail inviting an address to share an item, or to take it over (issue 27). Accepted
 * logged in, the item joins this account; logged out, the invited address's account, made for it as activation makes
 * one when it has none.
 */
export function InvitePage() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const invitation = useInvitation(token);

  if (invitation.isPending) return <p role="status">{t('common.loading')}</p>;
  if (invitation.isError && isExpired(invitation.error)) return <InvitationExpired />;
  if (invitation.isError) return <FormError>{errorText(t, invitation.error)}</FormError>;
  return <InvitationOffer token={token} invitation={invitation.data} />;
}

function InvitationExpired() {
  const { t } = useTranslation();
  const { user } = useSession();
  return (
    <section className="page page--narrow">
      <PageTitle title={t('invite.expiredTitle')} />
      <h1>{t('invite.expiredTitle')}</h1>
      <p role="alert">{t('errors.invitationExpired')}</p>
      <p>
        <Link className="button button--secondary" to={user ? '/items' : '/'}>
          {user ? t('items.title') : t('common.backToHome')}
        </Link>
      </p>
    </section>
  );
}

type Step = { name: 'offer' } | { name: 'setPassword'; accepted: InvitationAccepted } | { name: 'welcome'; code: string };

function InvitationOffer({ token, invitation }: { token: string; invitation: Invitation }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const flash = useFlash();
  const { user } = useSession();
  const accept = useAcceptInvitation(token);
  const [step, setStep] = useState<Step>({ name: 'offer' });
  const [expired, setExpired] = useState(false);
  const transfer = invitation.kind === 'transfer';
  const name = invitation.item_name;

  const accepted = (answer: InvitationAccepted) => {
    if (answer.response_code === 'NEW_USER_REGISTERED') {
      // Logged in with the new account's login token (useAcceptInvitation): a password is offered, as on activation.
      if (answer.password_token) setStep({ name: 'setPassword', accepted: answer });
      else setStep({ name: 'welcome', code: answer.code });
    } else if (user) {
      flash.show('success', transfer ? 'invite.acceptedTransfer' : 'invite.acceptedShare');
      void navigate(`/item/${encodeURIComponent(answer.code)}`);
    } else {
      // An existing account, logged out: the item is theirs; they log in and land on it.
      flash.show('success', 'invite.logInToSee');
      void navigate(`/login?ec=${encodeURIComponent(answer.code)}&email=${encodeURIComponent(invitation.email)}`);
    }
  };
  const submit = () =>
    accept.mutate(undefined, {
      onSuccess: accepted,
      onError: (error) => {
        if (isExpired(error)) setExpired(true);
      },
    });

  if (expired) return <InvitationExpired />;
  const title =
    step.name === 'setPassword'
      ? t('activate.setPasswordTitle')
      : step.name === 'welcome'
        ? t('invite.welcomeTitle')
        : transfer
          ? name
            ? t('invite.titleTransfer', { name })
            : t('invite.titleTransferUnnamed')
          : name
            ? t('invite.titleShare', { name })
            : t('invite.titleShareUnnamed');

  return (
    <section className="page page--narrow">
      <PageTitle title={title} />
      <h1>{title}</h1>
      {step.name === 'offer' && (
        <>
          <p>{t('invite.sentTo', { email: invitation.email })}</p>
          <p>{transfer ? t('invite.explainTransfer') : t('invite.explainShare')}</p>
          {user && <p>{t('invite.loggedInAs', { email: user.email })}</p>}
          <FormError>{accept.error && !isExpired(accept.error) ? errorText(t, accept.error) : null}</FormError>
          <div className="actions">
            <button type="button" onClick={submit} disabled={accept.isPending}>
              {t('invite.accept')}
            </button>
          </div>
        </>
      )}
      {step.name === 'setPassword' && (
        <OptionalPassword passwordToken={step.accepted.password_token ?? ''} onDone={() => setStep({ name: 'welcome', code: step.accepted.code })} />
      )}
      {step.name === 'welcome' && (
        <>
          <p>{transfer ? t('invite.welcomeTransfer') : t('invite.welcomeShare')}</p>
          <div className="actions">
            <Link className="button" to={`/item/${encodeURIComponent(step.code)}`}>
              {t('invite.toItem')}
            </Link>
            <Link className="button button--secondary" to="/items">
              {t('items.title')}
            </Link>
          </div>
        </>
      )}
    </section>
  );
}

export { InvitePage as Component };
