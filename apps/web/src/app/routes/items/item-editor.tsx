import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { z } from 'zod';
import { ITEM_NAME_MAX_LENGTH, type PublicItem } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { RequireLogin } from '../../../components/require-login';
import { useCreateItem, useDeleteItem, useOwnedItem, useUpdateItem } from '../../../features/items/api';
import { ItemNotFound } from '../../../features/items/components/item-not-found';
import { ItemNotifications } from '../../../features/items/components/item-notifications';
import { ItemPeople } from '../../../features/items/components/item-people';
import { LostModePanel } from '../../../features/items/components/lost-mode';
import { QrImage } from '../../../features/items/components/qr-image';
import { ScanHistory } from '../../../features/items/components/scan-history';
import { useLeaveGoneItem } from '../../../features/items/use-leave-gone-item';
import { API_BASE, isNotFound } from '../../../lib/api-transport';
import { rewardsEnabled } from '../../../lib/config';
import { errorKey, errorText, validationErrors } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { requiredText } from '../../../lib/form-schemas';
import { newIdempotencyKey } from '../../../lib/idempotency-key';
import { parseReward, rewardInputValue } from '../../../lib/reward';

interface ItemValues {
  name: string;
  reward: string;
}

/**
 * `/add-item` and `/item/{code}`: name an item, set its reward (when rewards are on), see its scans, delete it, share
 * it and hand it over. A co-owner sees the item without what only its owner may do (rename, reward, delete).
 */
export function ItemEditorPage() {
  return (
    <RequireLogin>
      <ItemEditor />
    </RequireLogin>
  );
}

function ItemEditor() {
  const { code } = useParams();
  const item = useOwnedItem(code);
  const { t } = useTranslation();

  if (!code) return <ItemForm />;
  if (item.isPending) return <p role="status">{t('common.loading')}</p>;
  if (isNotFound(item.error)) return <ItemNotFound code={code} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  if (item.data.role === 'co-owner') return <SharedItem item={item.data} />;
  return <ItemForm item={item.data} />;
}

/** The item page of a co-owner: what they may do (lost mode, notifications, leave), the owner's controls left out. */
function SharedItem({ item }: { item: PublicItem }) {
  const { t } = useTranslation();
  const title = t('itemForm.titleShared');
  return (
    <section className="page page--wide item-editor">
      <PageTitle title={title} />
      <h1>{title}</h1>
      <div className="item-editor__grid">
        <div className="item-editor__form">
          <p className="muted">{t('itemForm.code', { code: item.code })}</p>
          <p className="item-editor__name">{item.name || t('items.noName')}</p>
          <p>{t('itemForm.sharedText')}</p>
        </div>
        <aside className="item-editor__aside">
          <QrImage code={item.code} size={200} />
          <QrActions code={item.code} />
          <LostModePanel key={String(item.lost)} item={item} />
        </aside>
      </div>
      <ItemNotifications code={item.code} />
      <ItemPeople item={item} />
      <ScanHistory code={item.code} />
    </section>
  );
}

function ItemForm({ item }: { item?: PublicItem }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const flash = useFlash();
  const editing = item !== undefined;
  const showReward = rewardsEnabled && editing;
  const create = useCreateItem();
  const update = useUpdateItem(item?.code ?? '');
  const save = editing ? update : create;
  // One key per visit of the form: a retried or repeated "save" creates one item, not two.
  const [idempotencyKey] = useState(newIdempotencyKey);

  const schema = useMemo(
    () =>
      z.object({
        name: requiredText(t).max(ITEM_NAME_MAX_LENGTH, t('validation.max', { max: ITEM_NAME_MAX_LENGTH })),
        reward: z.string().refine((value) => !showReward || parseReward(value) !== null, t('itemForm.rewardInvalid')),
      }),
    [t, showReward],
  );
  const form = useForm<ItemValues>({
    resolver: zodResolver(schema),
    defaultValues: { name: item?.name ?? '', reward: rewardInputValue(item?.reward, i18n.resolvedLanguage ?? 'en') },
  });

  const saved = (code: string) => {
    flash.show('success', 'itemForm.saved');
    void navigate(`/found/${code}`);
  };
  const showServerErrors = (error: unknown) => {
    const { fields } = validationErrors(t, error, ['name', 'reward']);
    for (const [field, message] of Object.entries(fields)) form.setError(field as keyof ItemValues, { message });
  };
  const submit = ({ name, reward }: ItemValues) => {
    if (item) {
      const changes = showReward ? { name, reward: parseReward(reward) ?? 0 } : { name };
      update.mutate(changes, { onSuccess: () => saved(item.code), onError: showServerErrors });
    } else {
      create.mutate({ name, idempotencyKey }, { onSuccess: (created) => saved(created.code), onError: showServerErrors });
    }
  };
  const title = editing ? t('itemForm.titleEdit') : t('itemForm.titleAdd');

  return (
    <section className="page page--wide item-editor">
      <PageTitle title={title} />
      <h1>{title}</h1>
      <div className="item-editor__grid">
        <form noValidate onSubmit={form.handleSubmit(submit)} className="item-editor__form">
          {item && <p className="muted">{t('itemForm.code', { code: item.code })}</p>}
          <FormField label={t('itemForm.name')} autoComplete="off" form={form} name="name" />
          {showReward && (
            <FormField label={t('itemForm.reward')} hint={t('itemForm.rewardHint')} inputMode="decimal" autoComplete="off" form={form} name="reward" />
          )}
          <FormError>{save.error && errorText(t, save.error, editing ? { ITEM_NOT_FOUND: 'errors.itemNotFoundOnSave', 404: 'errors.itemNotFoundOnSave' } : {})}</FormError>
          <div className="actions">
            <button type="submit" disabled={save.isPending}>
              {t('itemForm.save')}
            </button>
          </div>
        </form>
        {item && (
          <aside className="item-editor__aside">
            <QrImage code={item.code} size={200} />
            <QrActions code={item.code} />
            {/* Keyed by the state: marking it back and lost again starts with an empty note, as the server has it. */}
            <LostModePanel key={String(item.lost)} item={item} />
            <DeleteItem code={item.code} />
          </aside>
        )}
      </div>
      {item && (
        <>
          <ItemNotifications code={item.code} />
          <ItemPeople item={item} />
          <ScanHistory code={item.code} />
        </>
      )}
    </section>
  );
}

/**
 * The tag's QR code in the owner's hands: a PNG file (the gateway's download, open to whoever holds the code, as
 * `/qr` is) and a page of labels to print.
 */
export function QrActions({ code }: { code: string }) {
  const { t } = useTranslation();
  return (
    <div className="actions qr-actions">
      <a className="button button--secondary" href={`${API_BASE}/items/${encodeURIComponent(code)}/qr/download`} download>
        {t('ownerQr.download')}
      </a>
      <Link className="button button--secondary" to={`/item/${code}/print`}>
        {t('ownerQr.print')}
      </Link>
    </div>
  );
}

/** Delete, after a confirmation: Escape closes it, Enter confirms (spec §2). */
function DeleteItem({ code }: { code: string }) {
  const { t } = useTranslation();
  const flash = useFlash();
  const remove = useDeleteItem(code);
  const leaveGoneItem = useLeaveGoneItem(code);
  const [confirming, setConfirming] = useState(false);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const openButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);

  const close = () => {
    setConfirming(false);
    openButton.current?.focus();
  };
  const confirm = async () => {
    const failed = await leaveGoneItem(() => remove.mutateAsync(), 'itemForm.deleted');
    if (!failed) return;
    setConfirming(false);
    flash.show('error', errorKey(failed.error));
  };

  if (!confirming) {
    return (
      <button ref={openButton} type="button" className="button--danger" onClick={() => setConfirming(true)}>
        {t('itemForm.delete')}
      </button>
    );
  }
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-modal="false"
      aria-labelledby="delete-item-title"
      aria-describedby="delete-item-text"
      onKeyDown={(event) => {
        if (event.key === 'Escape') close();
      }}
    >
      <h2 id="delete-item-title">{t('itemForm.deleteTitle')}</h2>
      <p id="delete-item-text">{t('itemForm.deleteText')}</p>
      <div className="actions">
        <button ref={confirmButton} type="button" className="button--danger" onClick={() => void confirm()} disabled={remove.isPending}>
          {t('itemForm.deleteConfirm')}
        </button>
        <button type="button" className="button--secondary" onClick={close}>
          {t('common.cancel')}
        </button>
      </div>
    </div>
  );
}

export { ItemEditorPage as Component };
