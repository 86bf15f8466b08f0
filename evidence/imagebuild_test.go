package evidence

import (
	"slices"
	"testing"
)

func TestBuiltImages(t *testing.T) {
	cases := []struct {
		name, base, text string
		want             []string
	}{
		{"jib maven", "pom.xml", `<project><artifactId>a</artifactId><build><plugins><plugin><artifactId>jib-maven-plugin</artifactId>
<configuration><from><image>eclipse-temurin:25-jre</image></from><to><image>jhipstersampleapplication:latest</image></to></configuration></plugin></plugins></build></project>`,
			[]string{"jhipstersampleapplication:latest"}},
		{"jib maven property", "pom.xml", `<project><artifactId>shop</artifactId><properties><registry>ghcr.io/acme</registry></properties><build><plugins><plugin>
<configuration><to><image>${registry}/${project.artifactId}</image></to></configuration></plugin></plugins></build></project>`,
			[]string{"ghcr.io/acme/shop"}},
		{"unknown property left out", "pom.xml", `<project><build><plugins><plugin><configuration><to><image>${docker.repo}/x</image></to></configuration></plugin></plugins></build></project>`, nil},
		{"spring boot default name", "pom.xml", `<project><artifactId>billing</artifactId><version>1.0</version><build><plugins><plugin><artifactId>spring-boot-maven-plugin</artifactId></plugin></plugins></build></project>`,
			[]string{"docker.io/library/billing:1.0"}},
		{"spring boot named", "pom.xml", `<project><artifactId>billing</artifactId><build><plugins><plugin><artifactId>spring-boot-maven-plugin</artifactId><configuration><image><name>acme/billing</name></image></configuration></plugin></plugins></build></project>`,
			[]string{"acme/billing"}},
		{"gradle jib", "build.gradle", "jib {\n  from { image = 'eclipse-temurin:21' }\n  to {\n    image = 'acme/orders'\n  }\n}", []string{"acme/orders"}},
		{"gradle jib dotted", "build.gradle", "jib.to.image = 'acme/orders:2'", []string{"acme/orders:2"}},
		{"kotlin bootBuildImage", "build.gradle.kts", `tasks.named<BootBuildImage>("bootBuildImage") { imageName.set("acme/pay") }`, []string{"acme/pay"}},
		{"no image", "pom.xml", `<project><artifactId>lib</artifactId></project>`, nil},
	}
	for _, c := range cases {
		if got := BuiltImages(c.base, []byte(c.text)); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	if !SameRepository("jhipstersampleapplication", "jhipstersampleapplication:latest") || !SameRepository("billing:0.0.1", "docker.io/library/billing:1.0") || SameRepository("acme/a", "acme/b") {
		t.Error("SameRepository")
	}
}
