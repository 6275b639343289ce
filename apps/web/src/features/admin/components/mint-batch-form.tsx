import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { createTagBatchBodySchema, TAG_BATCH_MAX_COUNT } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { FormField } from '../../../components/form/form-field';
import { errorText, validationErrors } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { requiredText } from '../../../lib/form-schemas';
import { newIdempotencyKey } from '../../../lib/idempotency-key';
import { useMintTagBatch } from '../api';

// createTagBatchBodySchema's label: at most 100 characters, on one line.
export const TAG_BATCH_LABEL_MAX_LENGTH = 100;

const FIELDS = ['label', 'count'] as const;

interface MintValues {
  label: string;
  count: string;
}

/** Mints a batch of unclaimed tags: what it is for, and how many. */
export function MintBatchForm() {
  const { t, i18n } = useTranslation();
  const flash = useFlash();
  const mint = useMintTagBatch();
  const maxCount = TAG_BATCH_MAX_COUNT.toLocaleString(i18n.resolvedLanguage);

  const schema = useMemo(
    () =>
      z.object({
        label: requiredText(t)
          .max(TAG_BATCH_LABEL_MAX_LENGTH, t('validation.max', { max: TAG_BATCH_LABEL_MAX_LENGTH }))
          .refine((label) => createTagBatchBodySchema.shape.label.safeParse(label).success, t('validation.invalid')),
        count: requiredText(t)
          .regex(/^\d+$/, t('admin.mint.countWhole'))
          .refine((count) => Number(count) >= 1 && Number(count) <= TAG_BATCH_MAX_COUNT, t('admin.mint.countRange', { max: maxCount })),
      }),
    [t, maxCount],
  );
  const form = useForm<MintValues>({ resolver: zodResolver(schema), defaultValues: { label: '', count: '' } });
  // One key per batch: the same form sent again after a failure reuses it (the server may have minted it already), a
  // changed form or the next batch gets a new one (the server refuses a key with another body).
  const attempt = useRef<{ body: string; key: string } | null>(null);

  const submit = ({ label, count }: MintValues) => {
    const body = { label: label.trim(), count: Number(count) };
    if (attempt.current?.body !== JSON.stringify(body)) attempt.current = { body: JSON.stringify(body), key: newIdempotencyKey() };
    mint.mutate(
      { ...body, idempotencyKey: attempt.current.key },
      {
        onSuccess: (batch) => {
          attempt.current = null;
          flash.show('success', 'admin.mint.minted', { tags: batch.count, label: batch.label });
          form.reset();
        },
        onError: (error) => {
          const { fields } = validationErrors(t, error, FIELDS);
          for (const [field, message] of Object.entries(fields)) form.setError(field as keyof MintValues, { message });
        },
      },
    );
  };

  // Shown under the form unless the server named one of its fields (then the message sits by that field).
  const server = mint.error ? validationErrors(t, mint.error, FIELDS) : null;
  const serverError = mint.error && server && Object.keys(server.fields).length === 0 ? [errorText(t, mint.error), ...server.others].join(' ') : null;

  return (
    <form noValidate onSubmit={form.handleSubmit(submit)} className="mint-form" aria-labelledby="mint-batch-title">
      <h2 id="mint-batch-title">{t('admin.mint.title')}</h2>
      <FormField label={t('admin.mint.label')} hint={t('admin.mint.labelHint')} autoComplete="off" maxLength={TAG_BATCH_LABEL_MAX_LENGTH} form={form} name="label" />
      <FormField label={t('admin.mint.count')} hint={t('admin.mint.countHint', { max: maxCount })} inputMode="numeric" autoComplete="off" form={form} name="count" />
      <FormError>{serverError}</FormError>
      <div className="actions">
        <button type="submit" disabled={mint.isPending}>
          {mint.isPending ? t('admin.mint.minting') : t('admin.mint.submit')}
        </button>
      </div>
    </form>
  );
}
