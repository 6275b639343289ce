import { useEffect, useState } from 'react';

// Product spec §4 and §9: a bucket of 10 that drains by one every 1000 ms; mouse or touch movement fills it again.
export const ACTIVITY_PERIOD_MS = 1000;
export const ACTIVITY_CAPACITY = 10;

const ACTIVITY_EVENTS = ['mousemove', 'touchmove', 'touchstart', 'keydown'] as const;

export interface ActivityTrackerOptions {
  target?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  periodMs?: number;
  capacity?: number;
  onActive(): void;
  onInactive(): void;
}

/**
 * Tells when the user has stopped using the page (the bucket ran empty: `onInactive`) and when they come back
 * (`onActive` on the first movement after that). Returns the function that stops tracking.
 */
export function trackActivity({ target = window, periodMs = ACTIVITY_PERIOD_MS, capacity = ACTIVITY_CAPACITY, onActive, onInactive }: ActivityTrackerOptions): () => void {
  let level = capacity;
  const activity = () => {
    if (level === 0) onActive();
    level = capacity;
  };
  const timer = setInterval(() => {
    if (level === 0) return;
    level -= 1;
    if (level === 0) onInactive();
  }, periodMs);
  for (const name of ACTIVITY_EVENTS) target.addEventListener(name, activity, { passive: true });
  return () => {
    clearInterval(timer);
    for (const name of ACTIVITY_EVENTS) target.removeEventListener(name, activity);
  };
}

/** Whether the user is using the page now: polling runs only while they are. */
export function useUserActive(): boolean {
  const [active, setActive] = useState(true);
  useEffect(() => trackActivity({ onActive: () => setActive(true), onInactive: () => setActive(false) }), []);
  return active;
}
