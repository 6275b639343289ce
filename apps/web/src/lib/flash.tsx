import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

// Product spec §9: a flash message shows for 3 seconds.
export const FLASH_VISIBLE_MS = 3000;

export type FlashKind = 'success' | 'error' | 'warning';
export interface FlashMessage {
  id: number;
  kind: FlashKind;
  text: string;
}

interface FlashState {
  message: FlashMessage | null;
  show(kind: FlashKind, text: string): void;
  dismiss(): void;
}

const FlashContext = createContext<FlashState | null>(null);

/** Holds the one flash message; above the router, so a message survives the navigation that follows an action. */
export function FlashProvider({ children }: { children: ReactNode }) {
  const [message, setMessage] = useState<FlashMessage | null>(null);
  const show = useCallback((kind: FlashKind, text: string) => setMessage({ id: Date.now() + Math.random(), kind, text }), []);
  const dismiss = useCallback(() => setMessage(null), []);
  const value = useMemo(() => ({ message, show, dismiss }), [message, show, dismiss]);
  return <FlashContext.Provider value={value}>{children}</FlashContext.Provider>;
}

export function useFlash(): FlashState {
  const state = useContext(FlashContext);
  if (!state) throw new Error('useFlash needs a FlashProvider (AppProvider) above it');
  return state;
}
