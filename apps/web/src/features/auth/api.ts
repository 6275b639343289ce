import { useMutation, useQuery } from '@tanstack/react-query';
import type { TokenResponse, User } from '@homing/contracts';

import type { ApiClient } from '../../lib/api-client';
import { useApi } from '../../lib/api-context';
import type { DownloadedFile } from '../../lib/api-transport';
import { saveFile } from '../../lib/save-file';
import { unsubscribeOwnerPush } from '../push';

// The account calls of product spec §7. A call that answers with a token logs in.

/** A call that answers with a token: its success logs in (or keeps the session with the fresh token). */
function useTokenCall<Body>(call: (api: ApiClient, body: Body) => Promise<TokenResponse>) {
  const api = useApi();
  return useMutation({ mutationFn: (body: Body) => call(api, body), onSuccess: ({ token }) => api.setToken(token) });
}

export function useLoginWithPassword() {
  return useTokenCall((api, body: { email: string; password: string }) => api.request<TokenResponse>('POST', '/user/login', { body }));
}

export function useRequestLoginCode() {
  const api = useApi();
  return useMutation({ mutationFn: (email: string) => api.request<unknown>('GET', '/magic-link', { query: { email } }) });
}

export function useLoginWithCode() {
  return useTokenCall((api, code: string) => api.request<TokenResponse>('POST', '/magic-link/login', { body: { code } }));
}

export function useForgotPassword() {
  const api = useApi();
  return useMutation({ mutationFn: (email: string) => api.request<unknown>('POST', '/user/password-forgot', { body: { email } }) });
}

export function useSetPassword() {
  return useTokenCall((api, body: { token: string; password: string }) => api.request<TokenResponse>('POST', '/user/password', { body }));
}

export function useUpdatePassword() {
  const api = useApi();
  return useMutation({ mutationFn: (password: string) => api.request<unknown>('POST', '/user/update-password', { body: { password } }) });
}

export function useCurrentUser(enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: ['user', 'me'], queryFn: () => api.request<User>('GET', '/user/me'), enabled });
}

/** Ends the session in this browser: the token leaves storage, and whoever watches the session is told. */
function forgetSession(api: ApiClient) {
  api.setToken(null);
}

export function useLogout() {
  const api = useApi();
  return useMutation({
    // The token leaves the browser's storage before any call: a tab closed or left before they answer is logged out
    // all the same. The owner's pushes stop first, while the token (kept in this page) still counts; then the session
    // ends on the server too. If either call fails the token still leaves this page.
    mutationFn: async () => {
      api.unstoreToken();
      await unsubscribeOwnerPush(api, { tellServer: true });
      await api.request<unknown>('POST', '/auth/logout').catch(() => undefined);
    },
    onSettled: () => forgetSession(api),
  });
}

/** What `DELETE /user` takes as proof that it is the owner: the password, or a login code (`GET /magic-link`). */
export type AccountDeletionProof = { password: string } | { code: string };

/**
 * Erases the account for good (`DELETE /user`). Once it is gone the session ends here as a logout ends it, without the
 * logout call (the server has no session left), and only after `onDeleted` has moved on from the account page, so
 * the page never flashes its not-logged-in view.
 */
export function useDeleteAccount(onDeleted: () => void | Promise<void>) {
  const api = useApi();
  return useMutation({
    mutationFn: (proof: AccountDeletionProof) => api.request<unknown>('DELETE', '/user', { body: proof }),
    onSuccess: async () => {
      await onDeleted();
      // The server dropped the account's push subscriptions with it; the browser's own goes too.
      await unsubscribeOwnerPush(api, { tellServer: false });
      forgetSession(api);
    },
  });
}

/**
 * Downloads everything kept about the logged-in user (`GET /user/export`) with the token, and saves it under the
 * server's name (`homing-export-<date>.json`). Never cached: the file is fetched anew on every click.
 */
export function useDownloadMyData() {
  const api = useApi();
  return useMutation({
    mutationFn: async () => {
      const downloaded = await api.request<DownloadedFile>('GET', '/user/export', { responseType: 'file' });
      saveFile(downloaded, `homing-export-${new Date().toISOString().slice(0, 10)}.json`);
    },
  });
}
