import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { Passkey, PasskeyCreationOptions, PasskeyList, PasskeyRequestOptions, TokenResponse } from '@homing/contracts';

import { useApi } from '../../lib/api-context';
import { refetchAfterChange } from '../../lib/refetch-after-change';

// The passkey calls: the gateway makes the options and checks what the browser's ceremony answers; nothing about a
// credential is kept in the browser.

export const passkeysKey = ['user', 'passkeys'] as const;

export function usePasskeys() {
  const api = useApi();
  return useQuery({ queryKey: passkeysKey, queryFn: async () => (await api.request<PasskeyList>('GET', '/user/passkeys')).passkeys });
}

/** Adds a passkey: the options, the browser's dialog, then the server's check of what the authenticator made. */
export function useAddPasskey() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const optionsJSON = await api.request<PasskeyCreationOptions>('POST', '/user/passkeys/options');
      // Made by @simplewebauthn/server and passed through unread (contracts: passkeyCreationOptionsSchema).
      const response = await startRegistration({ optionsJSON: optionsJSON as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'] });
      return api.request<Passkey>('POST', '/user/passkeys', { body: { response } });
    },
    onSettled: () => refetchAfterChange(queryClient, { queryKey: passkeysKey }),
  });
}

export function useRenamePasskey() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => api.request<Passkey>('PATCH', `/user/passkeys/${encodeURIComponent(id)}`, { body: { name } }),
    onSuccess: () => refetchAfterChange(queryClient, { queryKey: passkeysKey }),
  });
}

export function useDeletePasskey() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.request<unknown>('DELETE', `/user/passkeys/${encodeURIComponent(id)}`),
    onSettled: () => refetchAfterChange(queryClient, { queryKey: passkeysKey }),
  });
}

/**
 * Logs in with a passkey: request options, the browser's dialog (or, with `autofill`, the e-mail field's suggestions),
 * then the server's check. The token is kept as a password login keeps it, which logs in. The suggestions are offered
 * unasked, so they fail quietly (null) until the user has picked a passkey: options refused (rate limit, network) or a
 * browser that cannot offer them here (a page on an IP address) say nothing; the server refusing the pick does.
 */
export function usePasskeyLogin() {
  const api = useApi();
  return useMutation({
    mutationFn: async ({ autofill }: { autofill: boolean }): Promise<TokenResponse | null> => {
      const quietly = <T>(step: Promise<T>): Promise<T | null> => (autofill ? step.catch(() => null) : step);
      const optionsJSON = await quietly(api.request<PasskeyRequestOptions>('POST', '/user/login/passkey-options'));
      if (!optionsJSON) return null;
      const response = await quietly(
        startAuthentication({
          // Made by @simplewebauthn/server and passed through unread (contracts: passkeyRequestOptionsSchema).
          optionsJSON: optionsJSON as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'],
          useBrowserAutofill: autofill,
        }),
      );
      if (!response) return null;
      return api.request<TokenResponse>('POST', '/user/login/passkey', { body: { response } });
    },
    onSuccess: (answer) => {
      if (answer) api.setToken(answer.token);
    },
  });
}
