import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import type { ItemPeople as People, PublicItem } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { FormField } from '../../../components/form/form-field';
import { errorKey, errorText, validationErrors } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { emailField } from '../../../lib/form-schemas';
import { useCancelTransfer, useInviteCoOwner, useItemPeople, useLeaveItem, useRemovePerson, useTransferItem } from '../api';
import { useLeaveGoneItem } from '../use-leave-gone-item';

type Person = People['people'][number];
type OpenInvitation = People['invitations'][number];

/**
 * The item's people (issue 27): its owner and co-owners, and the invitations still open. The owner invites, removes,
 * withdraws and hands the item over; a co-owner sees the same list and may only leave.
 */
export function ItemPeople({ item }: { item: PublicItem }) {
  const { t } = useTranslation();
  const people = useItemPeople(item.code);
  const isOwner = item.role !== 'co-owner';
  const titleId = useId();

  return (
    <section className="item-people" aria-labelledby={titleId}>
      <h2 id={titleId}>{t('people.title')}</h2>
      <p className="muted">{isOwner ? t('people.introOwner') : t('people.introCoOwner')}</p>
      {people.isPending && <p role="status">{t('common.loading')}</p>}
      {people.isError && <FormError>{errorText(t, people.error)}</FormError>}
      {people.data && (
        <>
          <ul className="item-people__list">
            {people.data.people.map((person) => (
              <PersonRow key={person.id} code={item.code} person={person} canRemove={isOwner && person.role === 'co-owner'} />
            ))}
            {people.data.invitations
              .filter((invitation) => invitation.kind === 'co-owner')
              .map((invitation) => (
                <InvitationRow key={invitation.id} code={item.code} invitation={invitation} canWithdraw={isOwner} />
              ))}
          </ul>
          {isOwner && <InviteForm code={item.code} />}
          {!isOwner && <LeaveItem code={item.code} you={people.data.people.find((person) => person.is_you)} />}
          {isOwner && <HandOver code={item.code} waiting={people.data.invitations.find((invitation) => invitation.kind === 'transfer')} />}
        </>
      )}
    </section>
  );
}

function PersonRow({ code, person, canRemove }: { code: string; person: Person; canRemove: boolean }) {
  const { t } = useTranslation();
  const flash = useFlash();
  const remove = useRemovePerson(code);
  const [confirming, setConfirming] = useState(false);
  // A person whose account is gone has no address left to show.
  const address = person.email ?? t('people.noEmail');
  const confirm = () =>
    remove.mutate(person.id, {
      onSuccess: () => flash.show('success', 'people.removed', { email: address }),
      onError: (error) => {
        setConfirming(false);
        flash.show('error', errorKey(error));
      },
    });
  return (
    <li className="item-people__row">
      <span className="item-people__who">
        <span className="item-people__email">{address}</span>{' '}
        <span className="item-people__role">
          {person.role === 'owner' ? t('people.roleOwner') : t('people.roleCoOwner')}
          {person.is_you && ` · ${t('people.you')}`}
        </span>
      </span>
      {canRemove && (
        <Confirmable
          confirming={confirming}
          onOpen={() => setConfirming(true)}
          onClose={() => setConfirming(false)}
          onConfirm={confirm}
          busy={remove.isPending}
          openLabel={t('people.remove')}
          openName={t('people.removeNamed', { email: address })}
          title={t('people.removeTitle', { email: address })}
          text={t('people.removeText')}
          confirmLabel={t('people.removeConfirm')}
        />
      )}
    </li>
  );
}

function InvitationRow({ code, invitation, canWithdraw }: { code: string; invitation: OpenInvitation; canWithdraw: boolean }) {
  const { t, i18n } = useTranslation();
  const flash = useFlash();
  const withdraw = useRemovePerson(code);
  const until = useDate(invitation.expires_at, i18n.resolvedLanguage);
  return (
    <li className="item-people__row">
      <span className="item-people__who">
        <span className="item-people__email">{invitation.email}</span>{' '}
        <span className="item-people__role">{t('people.invited', { date: until })}</span>
      </span>
      {canWithdraw && (
        <button
          type="button"
          className="button--secondary"
          disabled={withdraw.isPending}
          aria-label={t('people.withdrawNamed', { email: invitation.email })}
          onClick={() =>
            withdraw.mutate(invitation.id, {
              onSuccess: () => flash.show('success', 'people.withdrawn', { email: invitation.email }),
              onError: (error) => flash.show('error', errorKey(error)),
            })
          }
        >
          {t('people.withdraw')}
        </button>
      )}
    </li>
  );
}

function useDate(iso: string, language = 'en') {
  return useMemo(() => new Intl.DateTimeFormat(language, { dateStyle: 'medium' }).format(new Date(iso)), [iso, language]);
}

/** One e-mail field and a button: the invite form and the hand-over form. */
function EmailForm({ label, submitLabel, busy, error, onSubmit }: { label: string; submitLabel: string; busy: boolean; error: unknown; onSubmit(email: string, done: () => void, failed: (error: unknown) => void): void }) {
  const { t } = useTranslation();
  const schema = useMemo(() => z.object({ email: emailField(t) }), [t]);
  const form = useForm<{ email: string }>({ resolver: zodResolver(schema), defaultValues: { email: '' }, reValidateMode: 'onSubmit' });
  const submit = ({ email }: { email: string }) =>
    onSubmit(
      email,
      () => form.reset(),
      (cause) => {
        const message = validationErrors(t, cause, ['email']).fields.email;
        if (message) form.setError('email', { message });
      },
    );
  const fieldError = error !== null && validationErrors(t, error, ['email']).fields.email;
  return (
    <form noValidate onSubmit={form.handleSubmit(submit)} className="item-people__form">
      <FormField label={label} type="email" autoComplete="off" form={form} name="email" />
      {/* A refusal about the address shows under the field; the others (too many people, already invited) here. */}
      <FormError>{error !== null && !fieldError ? errorText(t, error) : null}</FormError>
      <div className="actions">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

function InviteForm({ code }: { code: string }) {
  const { t } = useTranslation();
  const flash = useFlash();
  const invite = useInviteCoOwner(code);
  return (
    <EmailForm
      label={t('people.inviteEmail')}
      submitLabel={t('people.invite')}
      busy={invite.isPending}
      error={invite.error}
      onSubmit={(email, done, failed) =>
        invite.mutate(email, {
          onSuccess: () => {
            done();
            flash.show('success', 'people.invitationSent', { email });
          },
          onError: failed,
        })
      }
    />
  );
}

/** A co-owner leaves the item, after a confirmation: it is gone from their items at once. */
function LeaveItem({ code, you }: { code: string; you?: Person }) {
  const { t } = useTranslation();
  const flash = useFlash();
  const leave = useLeaveItem(code);
  const leaveGoneItem = useLeaveGoneItem(code);
  const [confirming, setConfirming] = useState(false);
  if (!you) return null;
  const confirm = async () => {
    const failed = await leaveGoneItem(() => leave.mutateAsync(you.id), 'people.left');
    if (!failed) return;
    setConfirming(false);
    flash.show('error', errorKey(failed.error));
  };
  return (
    <Confirmable
      confirming={confirming}
      onOpen={() => setConfirming(true)}
      onClose={() => setConfirming(false)}
      onConfirm={() => void confirm()}
      busy={leave.isPending}
      openLabel={t('people.leave')}
      title={t('people.leaveTitle')}
      text={t('people.leaveText')}
      confirmLabel={t('people.leaveConfirm')}
    />
  );
}

/**
 * The owner hands the item over to another address: it changes hands once they accept by the e-mailed link. Until
 * then the offer waits (one at a time) and can be cancelled.
 */
function HandOver({ code, waiting }: { code: string; waiting?: OpenInvitation }) {
  const { t } = useTranslation();
  const flash = useFlash();
  const transfer = useTransferItem(code);
  const cancel = useCancelTransfer(code);
  const titleId = useId();
  return (
    <section className="item-people__handover" aria-labelledby={titleId}>
      <h3 id={titleId}>{t('people.handOverTitle')}</h3>
      <p>{t('people.handOverText')}</p>
      {waiting ? (
        <>
          <p role="status">{t('people.handOverWaiting', { email: waiting.email })}</p>
          <FormError>{cancel.error ? errorText(t, cancel.error) : null}</FormError>
          <div className="actions">
            <button
              type="button"
              className="button--secondary"
              disabled={cancel.isPending}
              aria-label={t('people.handOverCancelNamed', { email: waiting.email })}
              onClick={() => cancel.mutate(undefined, { onSuccess: () => flash.show('success', 'people.handOverCancelled') })}
            >
              {t('common.cancel')}
            </button>
          </div>
        </>
      ) : (
        <EmailForm
          label={t('people.handOverEmail')}
          submitLabel={t('people.handOver')}
          busy={transfer.isPending}
          error={transfer.error}
          onSubmit={(email, done, failed) =>
            transfer.mutate(email, {
              onSuccess: () => {
                done();
                flash.show('success', 'people.handOverSent', { email });
              },
              onError: failed,
            })
          }
        />
      )}
    </section>
  );
}

interface ConfirmableProps {
  confirming: boolean;
  onOpen(): void;
  onClose(): void;
  onConfirm(): void;
  busy: boolean;
  openLabel: string;
  /** The button's accessible name when its words alone do not say whom it is about (a list of people). */
  openName?: string;
  title: string;
  text: ReactNode;
  confirmLabel: string;
}

/** A button that asks first, as deleting an item does: Escape closes the question, Enter confirms. */
function Confirmable({ confirming, onOpen, onClose, onConfirm, busy, openLabel, openName, title, text, confirmLabel }: ConfirmableProps) {
  const { t } = useTranslation();
  const id = useId();
  const confirmButton = useRef<HTMLButtonElement>(null);
  const openButton = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);

  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
    else if (wasConfirming.current) openButton.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  if (!confirming) {
    return (
      <button ref={openButton} type="button" className="button--secondary" onClick={onOpen} aria-label={openName}>
        {openLabel}
      </button>
    );
  }
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-modal="false"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <h3 id={`${id}-title`}>{title}</h3>
      <p id={`${id}-text`}>{text}</p>
      <div className="actions">
        <button ref={confirmButton} type="button" className="button--danger" onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </button>
        <button type="button" className="button--secondary" onClick={onClose}>
          {t('common.cancel')}
        </button>
      </div>
    </div>
  );
}
