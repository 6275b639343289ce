import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ItemNotificationSettings, ItemNotificationSettingsBody } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { errorText } from '../../../lib/error-catalogue';
import { useItemNotificationSettings, useUpdateItemNotificationSettings } from '../api';

/** How this person of the item is told about it (issue 27): each owner and co-owner chooses for themselves. */
export function ItemNotifications({ code }: { code: string }) {
  const { t } = useTranslation();
  const settings = useItemNotificationSettings(code);
  const update = useUpdateItemNotificationSettings(code);
  const titleId = useId();
  const emailId = useId();
  const pushId = useId();

  // A switch shows the change at once, while it is saved (held here: the mutation's own state arrives a tick later,
  // and a controlled checkbox would flip back meanwhile); the answer then confirms it, or an error undoes it.
  const [saving, setSaving] = useState<ItemNotificationSettingsBody>({});
  const shown = (channel: keyof ItemNotificationSettings) => saving[channel] ?? settings.data?.[channel] ?? false;
  const toggle = (channel: keyof ItemNotificationSettings, on: boolean) => {
    setSaving((current) => ({ ...current, [channel]: on }));
    update.mutate({ [channel]: on }, { onSettled: () => setSaving({}) });
  };

  return (
    <section className="item-notifications" aria-labelledby={titleId}>
      <h2 id={titleId}>{t('itemNotifications.title')}</h2>
      <p className="muted">{t('itemNotifications.intro')}</p>
      {settings.isPending && <p role="status">{t('common.loading')}</p>}
      {settings.isError && <FormError>{errorText(t, settings.error)}</FormError>}
      {settings.data && (
        <>
          <div className="checkbox-field">
            <input id={emailId} type="checkbox" checked={shown('email')} onChange={(event) => toggle('email', event.target.checked)} />
            <label htmlFor={emailId}>{t('itemNotifications.email')}</label>
          </div>
          <div className="checkbox-field">
            <input id={pushId} type="checkbox" checked={shown('push')} onChange={(event) => toggle('push', event.target.checked)} />
            <label htmlFor={pushId}>{t('itemNotifications.push')}</label>
          </div>
          <FormError>{update.error ? errorText(t, update.error) : null}</FormError>
        </>
      )}
    </section>
  );
}
