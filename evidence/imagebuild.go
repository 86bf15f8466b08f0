package evidence

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
)

// A container image need not come from a Dockerfile: a JVM project's own
// build tool makes one from the project's code and dependencies, and the
// compose file then names it by image: only (JHipster's app.yml runs
// `image: jhipstersampleapplication`, which `npm run java:docker` builds
// with jib from the project's pom.xml). That manifest is the image's
// build, so its dependencies are what the image's classpath holds.

// ImageBuilders are the base names of the build manifests BuiltImages
// reads.
var ImageBuilders = []string{"pom.xml", "build.gradle", "build.gradle.kts"}

// BuiltImages returns the image references a build manifest (by its base
// name: pom.xml, build.gradle, build.gradle.kts) says its build produces,
// as written there once ${...} properties of the POM are filled in
// ("jhipstersampleapplication:latest", "docker.io/library/demo:0.0.1").
// A reference with a property it cannot fill is left out. Sources:
//   - jib-maven-plugin <configuration><to><image>, jib-gradle-plugin
//     jib { to { image = '...' } } / jib.to.image
//     (https://github.com/GoogleContainerTools/jib/tree/master/jib-maven-plugin#configuration,
//     .../jib-gradle-plugin#configuration);
//   - spring-boot-maven-plugin build-image <configuration><image><name>,
//     whose default is docker.io/library/${project.artifactId}:${project.version},
//     and the Gradle plugin's bootBuildImage imageName
//     (https://docs.spring.io/spring-boot/maven-plugin/build-image.html#build-image.customization,
//     spring-projects/spring-boot#22918 for the table of defaults).
func BuiltImages(base string, data []byte) []string {
	switch base {
	case "pom.xml":
		return pomImages(data)
	case "build.gradle", "build.gradle.kts":
		return gradleImages(data)
	}
	return nil
}

// pomImages reads a POM's jib and Spring Boot image names.
func pomImages(data []byte) []string {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	var (
		stack       []string
		text        strings.Builder
		props       = map[string]string{}
		raw         []string
		springBoot  bool
		springNamed bool
	)
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			text.Reset()
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			p := strings.Join(stack, "/")
			v := strings.TrimSpace(text.String())
			switch {
			case p == "project/artifactId" || p == "project/version" || p == "project/name":
				props["project."+stack[1]] = v
				props[stack[1]] = v
			case len(stack) == 3 && stack[0] == "project" && stack[1] == "properties":
				props[stack[2]] = v
			case strings.HasSuffix(p, "/plugin/artifactId") && v == "spring-boot-maven-plugin":
				springBoot = true
			case strings.HasSuffix(p, "/configuration/to/image"):
				raw = append(raw, v)
			case strings.HasSuffix(p, "/configuration/image/name"):
				raw = append(raw, v)
				springNamed = true
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			text.Reset()
		}
	}
	if springBoot && !springNamed {
		raw = append(raw, "docker.io/library/${project.artifactId}:${project.version}")
	}
	var out []string
	for _, r := range raw {
		if s, ok := fillProps(r, props); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

var propRE = regexp.MustCompile(`\$\{([^}]*)\}`)

// fillProps replaces each ${name} of s by its value; ok is false when
// one has none.
func fillProps(s string, props map[string]string) (string, bool) {
	ok := true
	out := propRE.ReplaceAllStringFunc(s, func(m string) string {
		v, found := props[m[2:len(m)-1]]
		if !found || strings.Contains(v, "${") {
			ok = false
		}
		return v
	})
	return out, ok
}

// gradleImageRE finds an image name in a Groovy or Kotlin build script:
// jib's to { image = "..." } (or to.image / jib.to.image, setImage), and
// bootBuildImage's imageName = "..." (or imageName.set("..."), imageName "...").
var gradleImageRE = regexp.MustCompile(`(?s)\bto\s*\{[^{}]*?\bimage\s*=\s*["']([^"'$]+)["']|\bto\.image\s*=\s*["']([^"'$]+)["']|\bimageName(?:\s*=\s*|\.set\(\s*|\s+)["']([^"'$]+)["']`)

func gradleImages(data []byte) []string {
	var out []string
	for _, m := range gradleImageRE.FindAllSubmatch(data, -1) {
		for _, g := range m[1:] {
			if len(g) > 0 {
				out = append(out, string(g))
			}
		}
	}
	return out
}

// SameRepository reports whether two image references name the same
// repository, whatever their tags and registry hosts ("app" and
// "docker.io/library/app:1.0"), as catalog.Split reads them.
func SameRepository(a, b string) bool {
	ra, _ := catalog.Split(a)
	rb, _ := catalog.Split(b)
	return ra == rb
}
