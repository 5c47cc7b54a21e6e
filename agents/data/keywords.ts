/**
 * The words a table name may not be without quotes in DuckDB 1.5 (`duckdb_keywords()`,
 * categories reserved, column_name and type_function): `order.csv` would otherwise give a
 * table that `SELECT * FROM order` cannot reach, so such a name gets the `t_` prefix.
 */
export const SQL_KEYWORDS: ReadonlySet<string> = new Set((
  // reserved
  'all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create default ' +
  'deferrable desc describe distinct do else end except false fetch for foreign from group having in initially intersect ' +
  'into lambda lateral leading limit not null offset on only or order pivot pivot_longer pivot_wider placing primary ' +
  'qualify references returning select show some summarize symmetric table then to trailing true union unique unpivot ' +
  'using variadic when where window with ' +
  // column_name
  'between bigint bit boolean char character coalesce dec decimal exists extract float grouping grouping_id inout int ' +
  'integer interval national nchar none nullif numeric out overlay position precision real row setof smallint substring ' +
  'time timestamp treat trim values varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse ' +
  'xmlpi xmlroot xmlserialize xmltable ' +
  // type_function
  'anti asof at authorization binary by collation columns concurrently cross freeze full generated glob ilike inner is ' +
  'isnull join left like map natural notnull outer overlaps positional right semi similar struct tablesample try_cast ' +
  'unpack verbose'
).split(' '));
