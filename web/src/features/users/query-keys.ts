/** The users feature's query keys, in one place. */
export const usersKeys = {
  list: ['users', 'list'] as const,
}
