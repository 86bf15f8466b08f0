// Connects once the way nickjj/docker-node-example does (e2e
// TestKnexHostDirectory, evidence/knex.go): backend/config/index.js builds
// config.pg from the environment, backend/knexfile.js hands
// `process.env.DATABASE_URL || config.pg` to knex with client 'pg', and
// knex's postgres client gives that object to node-postgres's Client
// (knex 3.3.0 lib/dialects/postgres/index.js _acquireOnlyConnection).
//
//     POSTGRES_HOST=/dir ... node knex-host.js
//
// One JSON line: {"ok":true,"socket":B,"dir":D} or {"ok":false,"error":"..."}.
'use strict'
const fs = require('fs')
const out = (line) => fs.writeSync(1, line + '\n')
console.log = console.info = console.warn = console.error

const QUERY = "SELECT inet_client_addr() IS NULL AS socket, current_setting('unix_socket_directories') AS dir"

// config/index.js (config.pg), as the project writes it.
const config = {}
config.pg = {
  user: process.env.POSTGRES_USER || 'hello',
  password: process.env.POSTGRES_PASSWORD || 'password',
  host: process.env.POSTGRES_HOST || 'postgres',
  port: process.env.POSTGRES_PORT || '5432',
  database: process.env.POSTGRES_DB || 'hello',
}
if (process.env.KNEX_SSL === 'true') config.pg.ssl = true

// knexfile.js.
const knexfile = { client: 'pg', connection: process.env.DATABASE_URL || config.pg, pool: { min: 0, max: 1 } }

async function main() {
  const db = require('knex')(knexfile)
  let res
  try {
    const row = (await db.raw(QUERY)).rows[0]
    res = { ok: true, socket: row.socket === true, dir: row.dir }
  } catch (e) {
    res = { ok: false, error: String((e && e.message) || e) }
  } finally {
    await db.destroy()
  }
  out(JSON.stringify(res))
  process.exit(0)
}

main().catch((e) => { console.error(e); process.exit(1) })
