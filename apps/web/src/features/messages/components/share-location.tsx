import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { roundSharedLocation, type Message } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { useApi } from '../../../lib/api-context';
import { errorText } from '../../../lib/error-catalogue';
import { shareLocation } from '../api';
import { placeText } from '../shared-place';

type Position = { lat: number; lon: number; accuracy_m: number };
type LocateFailure = 'denied' | 'unavailable' | 'timeout' | 'unsupported';

// A phone outdoors answers within seconds; past this the finder is better off describing the place.
const LOCATE_TIMEOUT_MS = 20_000;

/** The device's position, asked only when the finder taps the button (the browser then asks them too). */
function locate(): Promise<Position> {
  return new Promise((resolve, reject: (failure: LocateFailure) => void) => {
    if (typeof navigator === 'undefined' || !navigator.geolocation) return reject('unsupported');
    navigator.geolocation.getCurrentPosition(
      ({ coords }) => resolve({ lat: coords.latitude, lon: coords.longitude, accuracy_m: coords.accuracy }),
      (error) => reject(error.code === error.PERMISSION_DENIED ? 'denied' : error.code === error.TIMEOUT ? 'timeout' : 'unavailable'),
      // Precise when the device can: the finder may still choose to send it only rounded.
      { enableHighAccuracy: true, timeout: LOCATE_TIMEOUT_MS, maximumAge: 60_000 },
    );
  });
}

/**
 * "Share where I found it": the finder's position, by their consent only, as an entry of their conversation. Nothing
 * is asked on load; after the tap the finder sees exactly what will be sent (rounded to about 1 km unless they choose
 * their exact position for a hand-over) before anything leaves the device.
 */
export function ShareLocation({ code, finderToken, onShared }: { code: string; finderToken: string; onShared(message: Message): void }) {
  const { t, i18n } = useTranslation();
  const api = useApi();
  const [step, setStep] = useState<'idle' | 'locating' | 'preview' | 'sending'>('idle');
  const [position, setPosition] = useState<Position | null>(null);
  const [precise, setPrecise] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);

  // Focus follows the flow: to the preview when it opens, back to the button when it closes.
  useEffect(() => {
    if (step === 'preview') heading.current?.focus();
    if (step === 'idle' && returnFocus.current) {
      returnFocus.current = false;
      opener.current?.focus();
    }
  }, [step]);

  const start = async () => {
    setError(null);
    setStep('locating');
    try {
      setPosition(await locate());
      setPrecise(false);
      setStep('preview');
    } catch (failure) {
      setError(t(`shareLocation.${failure as LocateFailure}`));
      setStep('idle');
    }
  };
  const close = () => {
    returnFocus.current = true;
    setPosition(null);
    setStep('idle');
  };
  const send = async () => {
    if (!position) return;
    setError(null);
    setStep('sending');
    try {
      // Exactly what the preview showed: a coarse place is rounded here, so the exact one never leaves the device.
      const { message } = await shareLocation(api, code, { ...roundSharedLocation({ ...position, precise }), precise }, finderToken);
      onShared(message);
      close();
    } catch (cause) {
      setError(errorText(t, cause));
      setStep('preview');
    }
  };

  if (!position || step === 'idle' || step === 'locating') {
    return (
      <div className="share-location">
        <button ref={opener} type="button" className="button--secondary" onClick={() => void start()} disabled={step === 'locating'}>
          {t('shareLocation.action')}
        </button>
        {step === 'locating' && <p role="status">{t('shareLocation.locating')}</p>}
        <FormError>{error}</FormError>
      </div>
    );
  }

  const shown = roundSharedLocation({ ...position, precise });
  const place = placeText(t, shown, i18n.resolvedLanguage ?? 'en');
  return (
    <section className="share-location share-location--open" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} ref={heading} tabIndex={-1}>
        {t('shareLocation.title')}
      </h2>
      <p className="muted">{t('shareLocation.intro')}</p>
      <p className="share-location__place" aria-live="polite">
        {precise ? place : t('shareLocation.previewCoarse', { place })}
      </p>
      <div className="checkbox-field">
        <input id={`${id}-precise`} type="checkbox" checked={precise} onChange={(event) => setPrecise(event.target.checked)} />
        <label htmlFor={`${id}-precise`}>{t('shareLocation.precise')}</label>
      </div>
      <FormError>{error}</FormError>
      <div className="actions">
        <button type="button" onClick={() => void send()} disabled={step === 'sending'}>
          {t('shareLocation.send')}
        </button>
        <button type="button" className="button--secondary" onClick={close} disabled={step === 'sending'}>
          {t('common.cancel')}
        </button>
      </div>
    </section>
  );
}
