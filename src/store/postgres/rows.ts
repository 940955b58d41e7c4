/** The one row a statement returned, or undefined when it returned none. */
export function first<R>({ rows }: { rows: R[] }): R | undefined {
  return rows[0]
}

/** Whether a statement anyRowChanged at least one row. */
export function anyRowChanged({ rowCount }: { rowCount: number | null }): boolean {
  return (rowCount ?? 0) > 0
}
