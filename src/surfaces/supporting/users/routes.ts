import type { UsersVariant } from '../../../config.js'
import { taggedItem, withETag } from '../../../http/conditional.js'
import { readOne } from '../../../http/e2/read-one.js'
import { sentBody } from '../../../http/e2/shape.js'
import { idempotent } from '../../../http/idempotency.js'
import { requireJsonContentType } from '../../../http/json-content-type.js'
import { created, locationHeader, type RouteSpec } from '../../../http/route-spec.js'
import { e2Errors, emailTaken, failures } from '../errors.js'
import { hashPassword } from './password.js'
import { checkNewUser } from './rules.js'
import { newUser, newUserExample, User, UserEnvelope, UserList } from './schemas.js'
import type { UserStore } from './store.js'

export interface UserRouteOptions {
  store: UserStore
  variant: UsersVariant
}

/** `/users` in either variant: `enveloped` wraps each user in `{ data }`, `flat` does not. */
export function userRoutes({ store, variant }: UserRouteOptions): RouteSpec[] {
  const enveloped = variant === 'enveloped'
  // The tag is of the representation this variant sends.
  const tagged = taggedItem<User>({
    schema: enveloped ? UserEnvelope : User,
    body: (user) => (enveloped ? { data: user } : user),
  })
  return [
    {
      method: 'GET',
      path: '/users',
      operationId: 'listUsers',
      summary: 'List users; `meta.page` is always 1.',
      description:
        'Every registered user in `data`, never their password; `meta.total` counts them. The ' +
        'list is one page whatever the query.',
      responses: { 200: { description: 'Every user.', schema: UserList } },
      async handler() {
        const data = await store.list()
        return { data, meta: { page: 1, total: data.length } }
      },
    },
    idempotent(
      {
        method: 'POST',
        path: '/users',
        operationId: 'createUser',
        summary: 'Register a user; the password is kept only as a salted scrypt hash.',
        description:
          'Checks in order: the Content-Type (415), the body reader (413, 400), the fields (400 ' +
          '`VALIDATION_ERROR`, each broken rule in `details`), then the email, unique in any ' +
          'letter case (409). The answer never contains the password.',
        body: {
          schema: newUser(variant),
          description: 'The new user.',
          example: newUserExample(variant),
        },
        onRequest: [requireJsonContentType(e2Errors)],
        responses: {
          201: withETag({
            description: 'Created.',
            schema: tagged.schema,
            headers: locationHeader('Path of the new user, `/users/<id>`.'),
          }),
          ...failures.body,
          409: failures.emailTaken,
        },
        async handler(request, reply) {
          const { password, ...fields } = checkNewUser(sentBody(request), variant)
          const passwordHash = password === undefined ? undefined : await hashPassword(password)
          const result = await store.create({ ...fields, ...(passwordHash && { passwordHash }) })
          if ('emailTaken' in result) throw emailTaken(fields.email)
          const { user } = result
          return tagged.send(created(reply, `/users/${user.id}`), user)
        },
      },
      failures.idempotency,
    ),
    readOne({
      path: '/users/{id}',
      operationId: 'getUser',
      what: 'user',
      item: tagged,
      find: (id) => store.get(id),
    }),
  ]
}
