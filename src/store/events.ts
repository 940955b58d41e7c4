// The events every store publishes with its writes (docs/events.md): what a write hands to the
// event log, which gives it its id and time. Shared by the memory and PostgreSQL stores.

/** Every event type a write publishes, by resource (the part of the type before the dot). */
export const EVENT_TYPES = {
  tugas: ['tugas.created', 'tugas.replaced', 'tugas.updated', 'tugas.deleted'],
  komentar: ['komentar.created'],
  'api-tugas': ['api-tugas.created', 'api-tugas.replaced', 'api-tugas.deleted'],
  todos: ['todos.created', 'todos.replaced', 'todos.deleted'],
  users: ['users.created'],
  pesanan: ['pesanan.created', 'pesanan.paid'],
  dokumen: ['dokumen.deleted'],
} as const

export type EventResource = keyof typeof EVENT_TYPES
export type EventType = (typeof EVENT_TYPES)[EventResource][number]

/** Every type, in the order of the table above. */
export const ALL_EVENT_TYPES: readonly EventType[] = Object.values(EVENT_TYPES).flat()

/** The surface's root path each resource's events name as their `source`. */
export const EVENT_SOURCES: Record<EventResource, string> = {
  tugas: '/tugas',
  komentar: '/tugas',
  'api-tugas': '/api/tugas',
  todos: '/todos',
  users: '/users',
  pesanan: '/pesanan',
  dokumen: '/dokumen',
}

export const resourceOf = (type: EventType) => type.slice(0, type.indexOf('.')) as EventResource

/**
 * The types a list of names selects (`GET /events?types=`, a webhook's `types`): each a type,
 * or `<resource>.*` for every type of one resource. Undefined when a name is neither.
 */
export function selectedTypes(names: readonly string[]): Set<EventType> | undefined {
  const types = new Set<EventType>()
  for (const name of names) {
    const resource = name.endsWith('.*') ? name.slice(0, -2) : undefined
    if (resource !== undefined && Object.hasOwn(EVENT_TYPES, resource)) {
      for (const type of EVENT_TYPES[resource as EventResource]) types.add(type)
    } else if ((ALL_EVENT_TYPES as readonly string[]).includes(name)) {
      types.add(name as EventType)
    } else {
      return undefined
    }
  }
  return types
}

/** An event as a write publishes it: the log adds its id and time. */
export interface NewEvent {
  type: EventType
  /** The resource id as a string; for a comment `<tugas id>/komentar/<id>`. */
  subject: string
  /** The resource as its item read returns it after the change, or `{ id }` for a deletion. */
  data: unknown
  /** Who may see it where not everyone may (`dokumen.*`): the document's owner. */
  owner?: string
}

/** Where a memory store hands the events of its writes, at the instant of the change. */
export type Publish = (event: NewEvent) => void
