// The schema compilers every app of the process shares: the validators and serializers Fastify
// builds for a route are kept and handed to the next app that asks for the same schema. A
// process serving requests builds one app and gains nothing; the tests build hundreds per
// process, and compiling their routes' schemas was most of what building one cost
// (docs/development.md#where-the-time-goes).
import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

type Factories = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>
type SerializerFactory = NonNullable<Factories['buildSerializer']>

/** Fastify's own validator compiler, with one pool of Ajv instances for the process. */
const buildValidator = AjvCompiler() as Factories['buildValidator']

const compileSerializer = SerializerSelector()
const serializers = new Map<string, unknown>()

/** Fastify's own serializer compiler, each serializer built once per schema and options. */
const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = compileSerializer(externalSchemas, options)
  const context = JSON.stringify([externalSchemas, options])
  return (route) => {
    const key = `${context}${JSON.stringify(route.schema)}`
    let serializer = serializers.get(key)
    if (serializer === undefined) {
      serializer = compile(route)
      serializers.set(key, serializer)
    }
    return serializer as ReturnType<ReturnType<SerializerFactory>>
  }
}

/** The `schemaController` option of every app. */
export const sharedCompilers = { compilersFactory: { buildValidator, buildSerializer } }
