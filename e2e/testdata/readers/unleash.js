// Connects once the way Unleash's server does (unleashorg/unleash-server),
// for e2e TestUnleashDatabaseSSL: the database options are built as
// Unleash/unleash@ceeb5a9c src/lib/create-config.ts builds them from the
// environment (databaseSSL, defaultDbOptions, createConfig's
// pg-connection-string parse of DATABASE_URL, dbPort, mergeAll = deepmerge
// .all), and handed to knex with client pg as src/lib/db/db-pool.ts does
// (connection: { ...db, application_name }). Only the DATABASE_* settings
// that decide where and how it connects are read; the certificate-file
// branch of databaseSSL is left out (no DATABASE_SSL_*_FILE is set here).
//
//     DATABASE_HOST=... DATABASE_SSL=false node unleash.js
//
// One JSON line: {"ok":true,"socket":B,"dir":D} or {"ok":false,"error":"..."}.
'use strict'
const fs = require('fs')
const out = (line) => fs.writeSync(1, line + '\n')
console.log = console.info = console.warn = console.error

const QUERY = "SELECT inet_client_addr() IS NULL AS socket, current_setting('unix_socket_directories') AS dir"

// create-config.ts databaseSSL(), without the *_FILE options.
function databaseSSL() {
  if (process.env.DATABASE_SSL != null) {
    return JSON.parse(process.env.DATABASE_SSL)
  }
  return { rejectUnauthorized: false } // parseEnvVarBoolean(DATABASE_SSL_REJECT_UNAUTHORIZED, false)
}

// create-config.ts dbPort().
function dbPort(dbConfig) {
  if (typeof dbConfig.port === 'string') {
    dbConfig.port = Number.parseInt(dbConfig.port, 10)
  }
  return dbConfig
}

function parseEnvVarNumber(v, def) {
  const n = Number.parseInt(v, 10)
  return Number.isNaN(n) ? def : n
}

async function main() {
  const merge = require('deepmerge')
  const { parse } = require('pg-connection-string')
  const defaultDbOptions = {
    user: process.env.DATABASE_USERNAME,
    password: process.env.DATABASE_PASSWORD,
    host: process.env.DATABASE_HOST,
    port: parseEnvVarNumber(process.env.DATABASE_PORT, 5432),
    database: process.env.DATABASE_NAME || 'unleash',
    ssl: databaseSSL(),
    driver: 'postgres',
    applicationName: process.env.DATABASE_APPLICATION_NAME || 'unleash',
  }
  let extraDbOptions = {}
  if (process.env.DATABASE_URL) {
    extraDbOptions = parse(process.env.DATABASE_URL)
  }
  const db = merge.all([defaultDbOptions, dbPort(extraDbOptions)].filter((i) => i))
  const knex = require('knex')({
    client: 'pg',
    connection: { ...db, application_name: db.applicationName },
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 10000,
  })
  try {
    const row = (await knex.raw(QUERY)).rows[0]
    out(JSON.stringify({ ok: true, socket: row.socket === true, dir: row.dir }))
  } catch (e) {
    out(JSON.stringify({ ok: false, error: String((e && e.message) || e) }))
  } finally {
    await knex.destroy()
  }
}

main().catch((e) => { out(JSON.stringify({ ok: false, error: String(e) })); process.exit(0) })
