import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { FLASH_VISIBLE_MS, flashText, useFlash } from '../../lib/flash';

/** The flash message bar: success, error or warning, gone after 3 seconds. Always in the page, so readers announce it. */
export function FlashBar() {
  const { t } = useTranslation();
  const { message, dismiss } = useFlash();

  useEffect(() => {
    if (!message) return;
    const timer = setTimeout(dismiss, FLASH_VISIBLE_MS);
    return () => clearTimeout(timer);
  }, [message, dismiss]);

  return (
    <div className="flash-region" role="status" aria-live="polite" aria-label={t('flash.region')}>
      {message && (
        <div key={message.id} className={`flash flash--${message.kind}`} data-testid="flash">
          <p>{flashText(t, message)}</p>
          <button type="button" className="flash__close" onClick={dismiss} aria-label={t('common.close')}>
            ×
          </button>
        </div>
      )}
    </div>
  );
}
