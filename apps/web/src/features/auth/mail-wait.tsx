import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ApiError } from '../../lib/api-transport';

/** Seconds the gateway asks to wait before another e-mail of this kind (a 429 with Retry-After), or null. */
export function mailWaitOf(error: unknown): number | null {
  if (!(error instanceof ApiError) || error.status !== 429) return null;
  return error.retryAfterSeconds ?? null;
}

/** A wait as minutes and seconds: 0:05, 1:00, 59:59; a day's wait in hours and minutes: 23:59:00. */
export function formatWait(seconds: number): string {
  const whole = Math.max(0, Math.ceil(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/**
 * The seconds left before a new e-mail may be asked for, counting down live from the Retry-After of the last
 * refusal (`error`); 0 when nothing is to wait for.
 */
export function useMailWait(error: unknown): number {
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const seconds = mailWaitOf(error);
    if (seconds === null) return;
    const started = Date.now();
    setNow(started);
    setUntil(started + seconds * 1000);
  }, [error]);
  useEffect(() => {
    if (until === null) return;
    const timer = setInterval(() => {
      const current = Date.now();
      setNow(current);
      if (current >= until) setUntil(null);
    }, 250);
    return () => clearInterval(timer);
  }, [until]);
  return until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
}

/** Says that the address's e-mails are spent for now, and when a new one can be asked for (a live countdown). */
export function MailWait({ secondsLeft }: { secondsLeft: number }) {
  const { t } = useTranslation();
  if (secondsLeft <= 0) return null;
  return (
    <div className="notice notice--warning mail-wait">
      {/* Announced once; the ticking timer is not read out every second. */}
      <p role="alert">{t('mailBudget.spent')}</p>
      <p role="timer">{t('mailBudget.wait', { time: formatWait(secondsLeft) })}</p>
    </div>
  );
}
