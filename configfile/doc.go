// Package configfile locates connection values in the configuration files a
// project mounts or builds into its containers, one editor per format
// (Java .properties, Spring YAML, Rails database.yml as ERB + YAML, JSON),
// with byte ranges from a parser of that format, so a caller can splice a
// new value in and leave every other byte as it was.
package configfile
