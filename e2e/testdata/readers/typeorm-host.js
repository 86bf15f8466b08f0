// Connects once the way a NestJS application of the shape of
// vndevteam/nestjs-boilerplate @ b6a5780e does (e2e TestTypeORMHostDirectory,
// evidence/typeorm.go): src/database/config/database.config.ts's
// registerAs('database', ...) namespace is built from the environment,
// src/database/typeorm-config.service.ts's createTypeOrmOptions reads it
// (type, host, port, username, password, name, ssl), and the options go to
// new DataSource(options) as @nestjs/typeorm's createDataSourceFactory
// hands them (nestjs/typeorm lib/typeorm-core.module.ts). TypeORM's
// postgres driver then builds node-postgres's pool from them.
//
//     DATABASE_HOST=/dir ... node typeorm-host.js typeorm|typeorm1
//
// One JSON line: {"ok":true,"socket":B,"dir":D,"typeorm":V} or {"ok":false,"error":"..."}.
'use strict'
const fs = require('fs')
const path = require('path')
const out = (line) => fs.writeSync(1, line + '\n')
console.log = console.info = console.warn = console.error

const QUERY = "SELECT inet_client_addr() IS NULL AS socket, current_setting('unix_socket_directories') AS dir"

// database.config.ts, lines 84-103 (the fields the connection uses).
function databaseConfig() {
  return {
    type: process.env.DATABASE_TYPE,
    host: process.env.DATABASE_HOST,
    port: process.env.DATABASE_PORT ? parseInt(process.env.DATABASE_PORT, 10) : 5432,
    password: process.env.DATABASE_PASSWORD,
    name: process.env.DATABASE_NAME,
    username: process.env.DATABASE_USERNAME,
    sslEnabled: process.env.DATABASE_SSL_ENABLED === 'true',
    rejectUnauthorized: process.env.DATABASE_REJECT_UNAUTHORIZED === 'true',
    ca: process.env.DATABASE_CA,
  }
}

// typeorm-config.service.ts createTypeOrmOptions, with configService.get('database.X').
function createTypeOrmOptions(db) {
  return {
    type: db.type,
    host: db.host,
    port: db.port,
    username: db.username,
    password: db.password,
    database: db.name,
    connectTimeoutMS: 10000,
    ssl: db.sslEnabled ? { rejectUnauthorized: db.rejectUnauthorized, ca: db.ca ?? undefined } : undefined,
  }
}

async function main() {
  const name = process.argv[2]
  const lib = require(name)
  const version = JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', name, 'package.json'))).version
  let res
  try {
    const ds = new lib.DataSource(createTypeOrmOptions(databaseConfig()))
    await ds.initialize()
    try {
      const row = (await ds.query(QUERY))[0]
      res = { ok: true, socket: row.socket === true || row.socket === 't', dir: row.dir, typeorm: version }
    } finally {
      await ds.destroy()
    }
  } catch (e) {
    res = { ok: false, error: String((e && e.message) || e), typeorm: version }
  }
  out(JSON.stringify(res))
  process.exit(0)
}

main().catch((e) => { console.error(e); process.exit(1) })
