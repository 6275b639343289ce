import { useTranslation } from 'react-i18next';
import { Link, useMatch, useNavigate, useParams } from 'react-router';

import { FormError } from '../../../components/form/form-error';
import { PageTitle } from '../../../components/page-title';
import { NewPasswordFields, useNewPasswordForm } from '../../../features/auth/components/new-password-fields';
import { useSetPassword } from '../../../features/auth/api';
import { useSession } from '../../../lib/session';
import { ApiError } from '../../../lib/api-transport';
import { errorText } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import type { NewPasswordValues } from '../../../lib/form-schemas';

/** `/reset-password/{token}` (from the forgot-password e-mail) and `/set-password/{token}` (from the welcome e-mail). */
export function SetPasswordPage() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const isReset = useMatch('/reset-password/:token') !== null;
  const { user } = useSession();
  const setPassword = useSetPassword();
  const flash = useFlash();
  const navigate = useNavigate();
  const { form, showServerError } = useNewPasswordForm();
  const title = isReset ? t('setPassword.titleReset') : t('setPassword.titleSet');

  const submit = ({ password }: NewPasswordValues) =>
    setPassword.mutate(
      { token, password },
      {
        onSuccess: () => {
          flash.show('success', 'setPassword.saved');
          void navigate('/items');
        },
        onError: showServerError,
      },
    );

  return (
    <section className="page page--narrow">
      <PageTitle title={title} />
      <h1>{title}</h1>
      {user && (
        <p className="notice" role="note">
          {t('setPassword.loggedInNote')} <Link to="/account">{t('nav.account')}</Link>
        </p>
      )}
      <form noValidate onSubmit={form.handleSubmit(submit)}>
        <NewPasswordFields form={form} />
        <FormError>{setPassword.error && errorText(t, setPassword.error)}</FormError>
        {isUnusableLink(setPassword.error) && (
          <div className="notice" role="note">
            <p>{t('tokenHelp.text')}</p>
            <ul className="links">
              <li>
                <Link to="/forgot-password">{t('tokenHelp.forgot')}</Link>
              </li>
              <li>
                <Link to="/login">{t('tokenHelp.logIn')}</Link>
              </li>
            </ul>
          </div>
        )}
        <button type="submit" disabled={setPassword.isPending}>
          {t('setPassword.submit')}
        </button>
      </form>
    </section>
  );
}

/** The link's token is wrong, used or expired: a new link or a login is the way on. */
function isUnusableLink(error: unknown): boolean {
  return error instanceof ApiError && (error.code === 'INVALID_PASSWORD_TOKEN' || error.code === 'EXPIRED_PASSWORD_TOKEN');
}

export { SetPasswordPage as Component };
