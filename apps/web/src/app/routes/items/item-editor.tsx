import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { z } from 'zod';
import { ITEM_NAME_MAX_LENGTH, type PublicItem } from '@homing/contracts';

import { FormError, FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { RequireLogin } from '../../../components/require-login';
import { useCreateItem, useDeleteItem, useOwnedItem, useUpdateItem } from '../../../features/items/api';
import { QrImage } from '../../../features/items/qr-image';
import { ApiError } from '../../../lib/api-client';
import { rewardsEnabled } from '../../../lib/config';
import { errorText, validationErrors } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { requiredText } from '../../../lib/form-schemas';
import { newIdempotencyKey } from '../../../lib/idempotency-key';
import { parseReward, rewardInputValue } from '../../../lib/reward';

interface ItemValues {
  name: string;
  reward: string;
}

/** `/add-item` and `/item/{code}`: name an item, set its reward (when rewards are on), delete it. */
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
  if (item.error instanceof ApiError && item.error.status === 404) return <ItemNotFound code={code} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  return <ItemForm item={item.data} />;
}

function ItemNotFound({ code }: { code: string }) {
  const { t } = useTranslation();
  return (
    <section className="page">
      <PageTitle title={t('itemForm.notFoundTitle')} />
      <h1>{t('itemForm.notFoundTitle')}</h1>
      <p>{t('itemForm.notFoundText', { code })}</p>
      <p>
        <Link to="/contact">{t('common.contactUs')}</Link>
      </p>
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
    flash.show('success', t('itemForm.saved'));
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
          <FormField label={t('itemForm.name')} autoComplete="off" registration={form.register('name')} error={form.formState.errors.name} />
          {showReward && (
            <FormField
              label={t('itemForm.reward')}
              hint={t('itemForm.rewardHint')}
              inputMode="decimal"
              autoComplete="off"
              registration={form.register('reward')}
              error={form.formState.errors.reward}
            />
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
            <DeleteItem code={item.code} />
          </aside>
        )}
      </div>
    </section>
  );
}

/** Delete, after a confirmation: Escape closes it, Enter confirms (spec §2). */
function DeleteItem({ code }: { code: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const flash = useFlash();
  const remove = useDeleteItem(code);
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
  const confirm = () =>
    remove.mutate(undefined, {
      onSuccess: () => {
        flash.show('success', t('itemForm.deleted'));
        void navigate('/items');
      },
      onError: (error) => {
        setConfirming(false);
        flash.show('error', errorText(t, error));
      },
    });

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
        <button ref={confirmButton} type="button" className="button--danger" onClick={confirm} disabled={remove.isPending}>
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
