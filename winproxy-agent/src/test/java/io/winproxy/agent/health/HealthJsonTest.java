package io.winproxy.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.model.IpFamily;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HealthJsonTest {

    @Test
    void formatsTimesAsGoRfc3339NanoWithTrailingZerosDropped() {
        assertThat(HealthJson.goTime(Instant.parse("2024-05-01T10:00:00.123400Z"), ZoneOffset.UTC))
                .isEqualTo("2024-05-01T10:00:00.1234Z");
        assertThat(HealthJson.goTime(Instant.parse("2024-05-01T10:00:00Z"), ZoneOffset.UTC))
                .isEqualTo("2024-05-01T10:00:00Z");
        assertThat(HealthJson.goTime(Instant.parse("2024-05-01T10:00:00.000000001Z"), ZoneOffset.UTC))
                .isEqualTo("2024-05-01T10:00:00.000000001Z");
    }

    @Test
    void formatsTimesInTheLocalZoneWithItsOffset() {
        Instant instant = Instant.parse("2024-05-01T10:00:00.5Z");
        assertThat(HealthJson.goTime(instant, ZoneId.of("Europe/Berlin"))).isEqualTo("2024-05-01T12:00:00.5+02:00");
        assertThat(HealthJson.goTime(instant, ZoneId.of("America/St_Johns"))).isEqualTo("2024-05-01T07:30:00.5-02:30");
        assertThat(HealthJson.goTime(instant, ZoneId.of("Europe/London"))).isEqualTo("2024-05-01T11:00:00.5+01:00");
        assertThat(HealthJson.goTime(Instant.parse("2024-01-01T10:00:00Z"), ZoneId.of("Europe/London")))
                .isEqualTo("2024-01-01T10:00:00Z");
    }

    @Test
    void formatsTheZeroTimeAsGoDoes() {
        assertThat(HealthJson.goTime(ProxyHealth.ZERO_TIME, ZoneId.of("Europe/Berlin")))
                .isEqualTo("0001-01-01T00:00:00Z");
    }

    @Test
    void rendersTheProxyHealthBodyWithoutWhitespaceInGoFieldOrder() {
        Instant updated = Instant.parse("2024-05-01T10:00:00Z");
        Instant now = Instant.parse("2024-05-01T10:00:25Z");
        ProxyHealth health = new ProxyHealth(updated, now, false, Map.of(
                IpFamily.IPV6, new ProxyHealth.FamilyHealth(updated, true),
                IpFamily.IPV4, new ProxyHealth.FamilyHealth(updated, false)));

        assertThat(HealthJson.proxyHealth(health, updated, true, ZoneOffset.UTC)).isEqualTo(
                "{\"lastUpdated\":\"2024-05-01T10:00:00Z\",\"currentTime\":\"2024-05-01T10:00:25Z\","
                        + "\"nodeEligible\":true,\"healthy\":false,\"status\":{"
                        + "\"IPv4\":{\"lastUpdated\":\"2024-05-01T10:00:00Z\",\"healthy\":false},"
                        + "\"IPv6\":{\"lastUpdated\":\"2024-05-01T10:00:00Z\",\"healthy\":true}}}");
    }

    @Test
    void omitsNodeEligibleForLivezAndStatusBeforeTheFirstUpdate() {
        Instant now = Instant.parse("2024-05-01T10:00:25Z");
        ProxyHealth health = new ProxyHealth(ProxyHealth.ZERO_TIME, now, true, Map.of());

        assertThat(HealthJson.proxyHealth(health, now, null, ZoneOffset.UTC)).isEqualTo(
                "{\"lastUpdated\":\"2024-05-01T10:00:25Z\",\"currentTime\":\"2024-05-01T10:00:25Z\",\"healthy\":true}");
        assertThat(HealthJson.proxyHealth(health, now, false, ZoneOffset.UTC)).contains("\"nodeEligible\":false,");
    }

    @Test
    void rendersTheServiceBodyIndentedWithTabsAndNoTrailingNewline() {
        assertThat(HealthJson.serviceHealth("a", "b", 18, true)).isEqualTo(
                "{\n\t\"service\": {\n\t\t\"namespace\": \"a\",\n\t\t\"name\": \"b\"\n\t},\n"
                        + "\t\"localEndpoints\": 18,\n\t\"serviceProxyHealthy\": true\n}");
    }

    @Test
    void quotesStringsAsGoDoes() {
        assertThat(HealthJson.quote("we\"ird\\\n")).isEqualTo("\"we\\\"ird\\\\\\n\"");
    }
}
