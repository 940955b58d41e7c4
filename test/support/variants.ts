// Every combination of the settings that change the OpenAPI document: 24 configurations.
import type {
  ProdukVersioning,
  TodosVariant,
  TugasVersioning,
  UsersVariant,
} from '../../src/config.js'

export interface Variants {
  tugasVersioning: TugasVersioning
  produkVersioning: ProdukVersioning
  usersVariant: UsersVariant
  todosVariant: TodosVariant
}

export const EVERY_VARIANT: Variants[] = (['none', 'path', 'header'] as const).flatMap(
  (tugasVersioning) =>
    (['none', 'header'] as const).flatMap((produkVersioning) =>
      (['enveloped', 'flat'] as const).flatMap((usersVariant) =>
        (['basic', 'priority'] as const).map((todosVariant) => ({
          tugasVersioning,
          produkVersioning,
          usersVariant,
          todosVariant,
        })),
      ),
    ),
)
