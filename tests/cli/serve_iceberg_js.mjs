// Drives `floe serve` with npm's iceberg-js (an independent REST catalog
// client): namespaces, a table created, loaded, listed, committed to and
// dropped. Prints one line per step ("step: result"); exits 1 on the first
// unexpected error. Used by tests/cli/serve_cli_test.cc.
//   node serve_iceberg_js.mjs BASE_URL [CATALOG_NAME] [TOKEN]
import { pathToFileURL } from 'node:url'

const shared = process.env.FLOE_SHARED
const { importPkg } = await import(pathToFileURL(`${shared}/interop/lib/modules.mjs`).href)
const { IcebergRestCatalog } = await importPkg('iceberg-js')

const [baseUrl, catalogName, token] = process.argv.slice(2)
const catalog = new IcebergRestCatalog({
  baseUrl,
  ...(catalogName ? { catalogName } : {}),
  ...(token ? { auth: { type: 'bearer', token } } : {}),
})
const say = (step, value) => console.log(`${step}: ${JSON.stringify(value)}`)

try {
  say('list-empty', (await catalog.listNamespaces()).namespaces)
  await catalog.createNamespace({ namespace: ['sales'] })
  await catalog.createNamespace({ namespace: ['sales', 'eu'] })
  say('list', (await catalog.listNamespaces()).namespaces)
  say('list-children', (await catalog.listNamespaces({ parent: { namespace: ['sales'] } })).namespaces)
  say('exists', await catalog.namespaceExists({ namespace: ['sales', 'eu'] }))
  say('exists-missing', await catalog.namespaceExists({ namespace: ['nope'] }))
  say('load-namespace', (await catalog.loadNamespaceMetadata({ namespace: ['sales'] })) !== undefined)
  const created = await catalog.createTable({ namespace: ['sales', 'eu'] }, {
    name: 'orders',
    schema: {
      type: 'struct',
      fields: [
        { id: 1, name: 'id', type: 'long', required: true },
        { id: 2, name: 'amount', type: 'decimal(10,2)', required: false },
        { id: 3, name: 'at', type: 'timestamptz', required: false },
      ],
      'schema-id': 0,
      'identifier-field-ids': [1],
    },
    'partition-spec': { 'spec-id': 0, fields: [{ 'source-id': 3, 'field-id': 1000, name: 'at_day', transform: 'day' }] },
    properties: { owner: 'test' },
  })
  say('create', { format: created['format-version'], fields: created.schemas[0].fields.map((f) => f.name) })
  const loaded = await catalog.loadTable({ namespace: ['sales', 'eu'], name: 'orders' })
  say('load', { uuid: loaded['table-uuid'] === created['table-uuid'], owner: loaded.properties.owner })
  say('list-tables', (await catalog.listTables({ namespace: ['sales', 'eu'] })).identifiers)
  say('table-exists', await catalog.tableExists({ namespace: ['sales', 'eu'], name: 'orders' }))
  const committed = await catalog.updateTable({ namespace: ['sales', 'eu'], name: 'orders' }, {
    requirements: [{ type: 'assert-table-uuid', uuid: created['table-uuid'] }],
    updates: [{ action: 'set-properties', updates: { stage: 'two' } }],
  })
  say('commit', { stage: committed.metadata.properties.stage, location: committed['metadata-location'].endsWith('v2.metadata.json') })
  try {
    await catalog.createTable({ namespace: ['sales', 'eu'] }, { name: 'orders', schema: { type: 'struct', fields: [] } })
    say('create-again', 'created')
  } catch (e) {
    say('create-again', e.status)
  }
  await catalog.dropTable({ namespace: ['sales', 'eu'], name: 'orders' }, { purge: true })
  say('after-drop', (await catalog.listTables({ namespace: ['sales', 'eu'] })).identifiers)
  try {
    await catalog.dropNamespace({ namespace: ['sales'] })
    say('drop-non-empty', 'dropped')
  } catch (e) {
    say('drop-non-empty', e.status)
  }
  await catalog.dropNamespace({ namespace: ['sales', 'eu'] })
  await catalog.dropNamespace({ namespace: ['sales'] })
  say('list-end', (await catalog.listNamespaces()).namespaces)
} catch (e) {
  console.error(`iceberg-js failed: ${e.status ?? ''} ${e.message}`)
  process.exit(1)
}
