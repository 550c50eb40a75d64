import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import { usersKeys } from './query-keys'

export type User = components['schemas']['User']
export type Role = User['role']

export const roles: { value: Role; label: string }[] = [
  { value: 'user', label: 'User' },
  { value: 'admin', label: 'Admin' },
  { value: 'superuser', label: 'Superuser' },
]

/** Every user, by username. */
export function useUsers() {
  return useQuery({
    queryKey: usersKeys.list,
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/users')).items,
  })
}

/** A change of users that, once done, refreshes the list. */
function useUsersMutation<T, R>(mutationFn: (input: T) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKeys.list }) })
}

export function useCreateUser() {
  return useUsersMutation(async (body: { username: string; password: string; role: Role }) =>
    unwrap(await api.POST('/api/v1/admin/users', { body })),
  )
}

/** Changes a user's role, or disables or enables them. */
export function useUpdateUser() {
  return useUsersMutation(async ({ id, ...body }: { id: string; role?: Role; disabled?: boolean }) =>
    unwrap(await api.PATCH('/api/v1/admin/users/{id}', { params: { path: { id } }, body })),
  )
}

export function useResetPassword() {
  return useUsersMutation(async ({ id, password }: { id: string; password: string }) =>
    unwrap(await api.POST('/api/v1/admin/users/{id}/password', { params: { path: { id } }, body: { password } })),
  )
}

/** The vault's password rule, shown before the vault has to refuse. */
export const passwordMinLength = 12
