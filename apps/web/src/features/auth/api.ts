import { useMutation, useQuery } from '@tanstack/react-query';
import type { TokenResponse, User } from '@homing/contracts';

import { useApi } from '../../lib/api-context';

// The account calls of product spec §7. A call that answers with a token logs in.

export function useLoginWithPassword() {
  const api = useApi();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) => api.request<TokenResponse>('POST', '/user/login', { body }),
    onSuccess: ({ token }) => api.setToken(token),
  });
}

export function useRequestLoginCode() {
  const api = useApi();
  return useMutation({ mutationFn: (email: string) => api.request<unknown>('GET', '/magic-link', { query: { email } }) });
}

export function useLoginWithCode() {
  const api = useApi();
  return useMutation({
    mutationFn: (code: string) => api.request<TokenResponse>('POST', '/magic-link/login', { body: { code } }),
    onSuccess: ({ token }) => api.setToken(token),
  });
}

export function useForgotPassword() {
  const api = useApi();
  return useMutation({ mutationFn: (email: string) => api.request<unknown>('POST', '/user/password-forgot', { body: { email } }) });
}

export function useSetPassword() {
  const api = useApi();
  return useMutation({
    mutationFn: (body: { token: string; password: string }) => api.request<TokenResponse>('POST', '/user/password', { body }),
    onSuccess: ({ token }) => api.setToken(token),
  });
}

export function useUpdatePassword() {
  const api = useApi();
  return useMutation({ mutationFn: (password: string) => api.request<unknown>('POST', '/user/update-password', { body: { password } }) });
}

export function useCurrentUser(enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: ['user', 'me'], queryFn: () => api.request<User>('GET', '/user/me'), enabled });
}

export function useLogout() {
  const api = useApi();
  return useMutation({
    // The session ends on the server too; if that call fails the token still leaves this browser.
    mutationFn: () => api.request<unknown>('POST', '/auth/logout').catch(() => undefined),
    onSettled: () => api.setToken(null),
  });
}
