import type { ParseKeys, TFunction } from 'i18next';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

// Product spec §9: a flash message shows for 3 seconds.
export const FLASH_VISIBLE_MS = 3000;

export type FlashKind = 'success' | 'error' | 'warning';

/** A text to translate when shown: a locale key and its values, each value itself a plain value or such a text. */
export interface FlashText {
  key: ParseKeys;
  params?: Record<string, string | number | FlashText>;
}

/**
 * The message keeps its key and values, not a translated string: the bar translates it as it renders, so a message on
 * screen follows a change of language.
 */
export interface FlashMessage extends FlashText {
  id: number;
  kind: FlashKind;
}

interface FlashState {
  message: FlashMessage | null;
  show(kind: FlashKind, key: ParseKeys, params?: FlashText['params']): void;
  dismiss(): void;
}

/** The text of a flash message in the current language. */
export function flashText(t: TFunction, text: FlashText): string {
  if (!text.params) return t(text.key);
  const params = Object.fromEntries(Object.entries(text.params).map(([name, value]) => [name, typeof value === 'object' ? flashText(t, value) : value]));
  return t(text.key, params);
}

const FlashContext = createContext<FlashState | null>(null);

/** Holds the one flash message; above the router, so a message survives the navigation that follows an action. */
export function FlashProvider({ children }: { children: ReactNode }) {
  const [message, setMessage] = useState<FlashMessage | null>(null);
  const show = useCallback((kind: FlashKind, key: ParseKeys, params?: FlashText['params']) => setMessage({ id: Date.now() + Math.random(), kind, key, params }), []);
  const dismiss = useCallback(() => setMessage(null), []);
  const value = useMemo(() => ({ message, show, dismiss }), [message, show, dismiss]);
  return <FlashContext.Provider value={value}>{children}</FlashContext.Provider>;
}

export function useFlash(): FlashState {
  const state = useContext(FlashContext);
  if (!state) throw new Error('useFlash needs a FlashProvider (AppProvider) above it');
  return state;
}
