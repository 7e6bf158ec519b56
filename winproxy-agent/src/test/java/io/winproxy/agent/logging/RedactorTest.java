package io.winproxy.agent.logging;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class RedactorTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "Authorization: Bearer abc.DEF-123 | Authorization: Bearer <redacted>",
            "header authorization=Basic dXNlcjpwYXNz; next | header authorization=Basic <redacted>; next",
            "sending bearer sk_live_1234 to api | sending bearer <redacted> to api",
            "headers {\"Authorization\":[\"Bearer abc\"]} | headers {\"Authorization\":[\"Bearer <redacted>\"]}",
            "headers {Authorization=[Basic dXNlcg==], Accept=[*/*]} | headers {Authorization=[Basic <redacted>],"
                    + " Accept=[*/*]}",
            "url https://api/x?token=s3cr3t&watch=true | url https://api/x?token=<redacted>&watch=true",
            "password=hunter2 user=bob | password=<redacted> user=bob",
            "{\"password\":\"hunter2\",\"user\":\"bob\"} | {\"password\":\"<redacted>\",\"user\":\"bob\"}",
            "client-key-data: LS0tLS1CRUdJTg== | client-key-data: <redacted>",
            "client_secret: abcdef | client_secret: <redacted>",
            "proxy https://admin:pa55@proxy.local:3128/ | proxy https://admin:<redacted>@proxy.local:3128/",
            "sa token eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnbmF0dXJl here"
                    + " | sa token <redacted> here"})
    void credentialsAreMasked(String input, String expected) {
        assertThat(Redactor.redact(input)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "Syncing 12 services on node win-1",
            "tokenFile=/var/run/secrets/kubernetes.io/serviceaccount/token",
            "bearer-token-file is not set",
            "created load balancer 8f1c2c3e-1b2a-4c5d-9e8f-0a1b2c3d4e5f for 10.0.0.10:80",
            "https://10.0.0.1:6443/api/v1/services?watch=true"})
    void textWithoutCredentialsIsUnchanged(String input) {
        assertThat(Redactor.redact(input)).isEqualTo(input);
    }

    @Test
    void redactingTwiceChangesNothingMore() {
        String once = Redactor.redact("Authorization: Bearer abc token=x");
        assertThat(Redactor.redact(once)).isEqualTo(once);
    }
}
