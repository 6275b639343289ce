import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams, useSearchParams } from 'react-router';

import { FormError } from '../../../components/form/form-error';
import { usePublicItem, useRefreshPublicItem } from '../../../features/items/public-item';
import { ItemNotFound } from '../../../features/items/components/item-not-found';
import { useRecordScan } from '../../../features/items/use-record-scan';
import { FinderView } from '../../../features/messages/components/finder-view';
import { OwnerView } from '../../../features/messages/components/owner-view';
import { PrerenderedLoading } from '../../../features/messages/components/prerendered-loading';
import { openedPrerendered } from '../../../features/messages/prerendered-draft';
import { serverRenderedItem } from '../../../features/messages/server-rendered-item';
import type { ResumeAddress } from '../../../features/messages/use-resume-link';
import { isNotFound } from '../../../lib/api-transport';
import { errorText } from '../../../lib/error-catalogue';
import { useSession } from '../../../lib/session';

/** `/found/{code}`: what a finder sees after scanning a tag, and the owner's thread about the item. */
export function FoundPage() {
  const { t } = useTranslation();
  const { code = '' } = useParams();
  const { user } = useSession();
  const resume = useRouterResumeAddress();
  // The item the gateway's page was rendered with is the one a visitor who is not logged in sees: shown at once.
  const item = usePublicItem(code, user ? undefined : serverRenderedItem(code));
  const refreshItem = useRefreshPublicItem(code);
  // A scan is someone opening the finder page of an activated tag: not its owner looking at their own thread.
  useRecordScan(code, item.data !== undefined && item.data.activated && !item.data.is_owner);

  // An owner who is logged out would otherwise only see the finder's form.
  const ownerLogin = !user && (
    <p className="owner-login">
      <Link to={`/login?c=${encodeURIComponent(code)}`}>{t('ownerLogin.link')}</Link>
    </p>
  );
  if (item.isPending) return openedPrerendered() ? <PrerenderedLoading after={ownerLogin} /> : <p role="status">{t('found.loading')}</p>;
  if (isNotFound(item.error)) return <ItemNotFound code={code} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  if (!item.data.activated) return <Navigate to={`/activate/${encodeURIComponent(code)}`} replace />;
  // Keyed by code: another tag's page starts from a fresh thread.
  if (item.data.is_owner) return <OwnerView key={code} item={item.data} />;
  return (
    <>
      <FinderView key={code} item={item.data} resume={resume} onItemChanged={refreshItem} />
      {ownerLogin}
    </>
  );
}

/**
 * The resume link's address as the router has it: taking `resume` out goes through the router, which keeps its state.
 * `useResumeLink` reads the address the page opened with only, so a fresh one each render costs nothing.
 */
function useRouterResumeAddress(): ResumeAddress {
  const [params, setParams] = useSearchParams();
  const drop = () =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('resume');
        return next;
      },
      { replace: true },
    );
  return { token: params.get('resume'), drop };
}

export { FoundPage as Component };
