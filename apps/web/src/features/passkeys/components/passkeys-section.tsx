import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { PASSKEY_NAME_MAX_LENGTH, type Passkey } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { ConfirmModal } from '../../../components/modal';
import { ApiError } from '../../../lib/api-transport';
import { errorText } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { formatRelativeTime } from '../../../lib/relative-time';
import { useAddPasskey, useDeletePasskey, usePasskeys, useRenamePasskey } from '../api';
import { ceremonyFailure } from '../ceremony-error';

interface PasskeysSectionProps {
  /** "Log in again" when adding needs a recent login: ends the session and returns here after the next login. */
  onLogInAgain(): void;
}

/** The account's passkeys: add one (after a recent login), rename, delete. Hidden where the browser has no WebAuthn. */
export function PasskeysSection({ onLogInAgain }: PasskeysSectionProps) {
  const { t } = useTranslation();
  const [supported] = useState(() => browserSupportsWebAuthn());
  const headingId = useId();
  if (!supported) return null;
  return (
    <section className="account-passkeys" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('passkeys.title')}</h2>
      <p>{t('passkeys.intro')}</p>
      <PasskeyList />
      <AddPasskey onLogInAgain={onLogInAgain} />
    </section>
  );
}

function AddPasskey({ onLogInAgain }: PasskeysSectionProps) {
  const { t } = useTranslation();
  const add = useAddPasskey();
  const flash = useFlash();
  const failure = add.error ? ceremonyFailure(add.error) : null;
  const needsLogin = add.error instanceof ApiError && add.error.code === 'RECENT_LOGIN_REQUIRED';
  const messages = {
    // 422: the server could not verify what the authenticator made.
    api: () => errorText(t, add.error, { 422: 'errors.passkeyNotVerified' }),
    duplicate: () => t('passkeys.alreadyOnDevice'),
    device: () => t('passkeys.addFailed'),
    quiet: () => null,
  };
  const message = failure ? messages[failure]() : null;

  return (
    <div className="account-passkeys__add">
      {needsLogin ? (
        <div className="notice" role="alert">
          <p>{t('errors.recentLoginRequired')}</p>
          <button type="button" onClick={onLogInAgain}>
            {t('passkeys.logInAgain')}
          </button>
        </div>
      ) : (
        <FormError>{message}</FormError>
      )}
      {failure === 'quiet' && <p role="status">{t('passkeys.cancelled')}</p>}
      <button type="button" onClick={() => add.mutate(undefined, { onSuccess: () => flash.show('success', 'passkeys.added') })} disabled={add.isPending}>
        {t('passkeys.add')}
      </button>
    </div>
  );
}

function PasskeyList() {
  const { t } = useTranslation();
  const passkeys = usePasskeys();
  if (passkeys.isPending) return <p role="status">{t('common.loading')}</p>;
  if (passkeys.isError) return <FormError>{errorText(t, passkeys.error)}</FormError>;
  if (passkeys.data.length === 0) return <p>{t('passkeys.none')}</p>;
  return (
    <ul className="passkey-list">
      {passkeys.data.map((passkey) => (
        <PasskeyEntry key={passkey.id} passkey={passkey} />
      ))}
    </ul>
  );
}

/** The owner's name for it, else its provider's (from the AAGUID), else a plain "Passkey". */
export function passkeyLabel(passkey: Passkey, fallback: string): string {
  return passkey.name ?? passkey.provider ?? fallback;
}

function PasskeyEntry({ passkey }: { passkey: Passkey }) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? 'en';
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useDeletePasskey();
  const flash = useFlash();
  const label = passkeyLabel(passkey, t('passkeys.defaultName'));

  return (
    <li className="passkey-list__entry">
      {renaming ? (
        <RenameForm passkey={passkey} current={label} onDone={() => setRenaming(false)} />
      ) : (
        <h3 className="passkey-list__name">{label}</h3>
      )}
      <dl className="passkey-list__facts">
        <div>
          <dt>{t('passkeys.created')}</dt>
          <dd>
            <When iso={passkey.created_at} language={language} />
          </dd>
        </div>
        <div>
          <dt>{t('passkeys.lastUsed')}</dt>
          <dd>{passkey.last_used_at ? <When iso={passkey.last_used_at} language={language} /> : t('passkeys.neverUsed')}</dd>
        </div>
      </dl>
      {passkey.synced && <p className="passkey-list__synced">{t('passkeys.synced')}</p>}
      {!renaming && (
        <div className="actions">
          <button type="button" className="button--secondary" onClick={() => setRenaming(true)} aria-label={t('passkeys.renameLabel', { name: label })}>
            {t('passkeys.rename')}
          </button>
          <button type="button" className="button--danger" onClick={() => setConfirming(true)} aria-label={t('passkeys.deleteLabel', { name: label })}>
            {t('common.delete')}
          </button>
        </div>
      )}
      {confirming && (
        <ConfirmModal
          title={t('passkeys.deleteTitle')}
          text={t('passkeys.deleteText', { name: label })}
          confirmLabel={t('passkeys.deleteConfirm')}
          cancelLabel={t('common.cancel')}
          action={async () => {
            await remove.mutateAsync(passkey.id);
            flash.show('success', 'passkeys.deleted');
          }}
          onError={(error) => flash.show('error', errorKeyOf(error))}
          onClose={() => setConfirming(false)}
        />
      )}
    </li>
  );
}

// A deleted passkey's entry leaves the list (and its modal with it); a failure is told by a flash.
function errorKeyOf(error: unknown) {
  return error instanceof ApiError && error.status === 404 ? 'errors.notFound' : 'errors.unexplained';
}

function When({ iso, language }: { iso: string; language: string }) {
  const absolute = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  return (
    <time dateTime={iso} title={absolute}>
      {formatRelativeTime(iso, language)}
    </time>
  );
}

function RenameForm({ passkey, current, onDone }: { passkey: Passkey; current: string; onDone(): void }) {
  const { t } = useTranslation();
  const rename = useRenamePasskey();
  const [name, setName] = useState(current);
  const [invalid, setInvalid] = useState(false);
  const inputId = useId();
  const errorId = `${inputId}-error`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    setInvalid(trimmed.length === 0);
    if (trimmed.length > 0) rename.mutate({ id: passkey.id, name: trimmed }, { onSuccess: onDone });
  };

  return (
    <form noValidate onSubmit={submit} className="passkey-list__rename">
      <div className="field">
        <label htmlFor={inputId}>{t('passkeys.nameLabel')}</label>
        <input
          id={inputId}
          value={name}
          maxLength={PASSKEY_NAME_MAX_LENGTH}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? errorId : undefined}
          autoFocus
        />
        {invalid && (
          <p id={errorId} className="field__error" role="alert">
            {t('validation.required')}
          </p>
        )}
      </div>
      <FormError>{rename.error && errorText(t, rename.error)}</FormError>
      <div className="actions">
        <button type="submit" disabled={rename.isPending}>
          {t('common.save')}
        </button>
        <button type="button" className="button--secondary" onClick={onDone}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
