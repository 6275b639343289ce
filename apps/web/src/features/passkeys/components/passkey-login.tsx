import { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill, WebAuthnAbortService } from '@simplewebauthn/browser';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { FormError } from '../../../components/form/form-error';
import { errorText } from '../../../lib/error-catalogue';
import { usePasskeyLogin } from '../api';
import { ceremonyFailure } from '../ceremony-error';

/**
 * "Log in with a passkey", and the browser's passkey suggestions on the page's e-mail field (conditional mediation:
 * the field needs `autocomplete="username webauthn"`). A success keeps the token as a password login does; the login
 * page then sends the user on. Nothing shows where the browser has no WebAuthn.
 */
export function PasskeyLogin() {
  const { t } = useTranslation();
  const login = usePasskeyLogin();
  const [supported] = useState(() => browserSupportsWebAuthn());
  const { mutate } = login;

  useEffect(() => {
    if (!supported) return;
    let left = false;
    void browserSupportsWebAuthnAutofill().then((autofill) => {
      if (autofill && !left) mutate({ autofill: true });
    });
    return () => {
      left = true;
      // The suggestions' request would otherwise outlive the page (and block the next ceremony).
      WebAuthnAbortService.cancelCeremony();
    };
  }, [supported, mutate]);

  if (!supported) return null;
  // A new ceremony (the button) aborts the suggestions' one: startAuthentication cancels any earlier ceremony.
  const failure = login.error ? ceremonyFailure(login.error) : null;
  const message = failure === 'api' ? errorText(t, login.error, { 401: 'errors.invalidCredentials' }) : failure === 'device' ? t('passkeys.loginFailed') : null;
  return (
    <div className="passkey-login">
      <FormError>{message}</FormError>
      <button type="button" className="button--secondary" onClick={() => mutate({ autofill: false })} disabled={login.isPending && !login.variables?.autofill}>
        {t('passkeys.logIn')}
      </button>
    </div>
  );
}
