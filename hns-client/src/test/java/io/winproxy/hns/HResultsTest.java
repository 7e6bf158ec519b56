package io.winproxy.hns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import org.junit.jupiter.api.Test;

/** The HCN HRESULT table and classification predicates of hcn-api.md section 4. */
class HResultsTest {

    @Test
    void theHcnTableRunsConsecutivelyFrom0x803B0001To0x803B0037() {
        for (int code = 0x803B0001; code <= 0x803B0037; code++) {
            assertThat(HResults.name(code)).as(HResults.hex(code)).matches("(HCN|GCN)_E_[A-Z0-9_]+");
        }
        assertThat(HResults.name(0x803B0013)).isEqualTo("HCN_E_PORT_ALREADY_EXISTS");
        assertThat(HResults.name(0x803B001C)).isEqualTo("HCN_E_INVALID_JSON_REFERENCE");
        assertThat(HResults.name(0x803B002C)).isEqualTo("HCN_E_ENTITY_HAS_REFERENCES");
        assertThat(HResults.name(0x803B002D)).isEqualTo("HCN_E_INVALID_INTERNAL_PORT");
        assertThat(HResults.name(0x803B0037)).isEqualTo("HCN_E_VFP_NOT_ALLOWED");
        assertThat(HResults.name(0x803B0038)).isEqualTo("0x803B0038");
    }

    @Test
    void everyConstantHasItsNameAndAMessage() throws IllegalAccessException {
        for (Field f : HResults.class.getFields()) {
            int code = f.getInt(null);
            assertThat(HResults.name(code)).isEqualTo(f.getName());
            assertThat(HResults.message(code)).as(f.getName()).isPresent().get().asString().isNotBlank();
        }
        assertThat(HResults.message(HResults.HCN_E_PORT_ALREADY_EXISTS)).contains("The specified port already exists");
        assertThat(HResults.message(HResults.ERROR_ALREADY_EXISTS))
                .contains("Cannot create a file when that file already exists");
        assertThat(HResults.message(0x803B0038)).isEmpty();
    }

    @Test
    void failureCodesAreEveryConstantButSuccessInDeclarationOrder() {
        assertThat(HResults.failureCodes()).doesNotContain(HResults.S_OK).startsWith(HResults.E_NOTIMPL)
                .endsWith(HResults.HCN_E_VFP_NOT_ALLOWED).hasSize(HResults.class.getFields().length - 1)
                .doesNotHaveDuplicates();
    }

    @Test
    void predicatesClassifyByCode() {
        assertThat(HResults.isNotFound(HResults.ERROR_NOT_FOUND)).isTrue();
        assertThat(HResults.isNotFound(HResults.HCN_E_ENDPOINT_NOT_FOUND)).isTrue();
        assertThat(HResults.isNotFound(HResults.HCN_E_PORT_NOT_FOUND)).isFalse();
        assertThat(HResults.isAlreadyExists(HResults.HCN_E_PORT_ALREADY_EXISTS)).isTrue();
        assertThat(HResults.isAlreadyExists(HResults.HCN_E_LAYER_ALREADY_EXISTS)).isTrue();
        assertThat(HResults.isInvalidArgument(HResults.HCN_E_INVALID_JSON_REFERENCE)).isTrue();
        assertThat(HResults.isInvalidArgument(HResults.E_INVALIDARG)).isTrue();
        assertThat(HResults.isNotImplemented(HResults.E_NOTIMPL)).isTrue();
        assertThat(HResults.isServiceUnavailable(HResults.HCN_E_MANAGER_STOPPED)).isTrue();
    }

    @Test
    void hresultsParseFromHexDecimalAndNames() {
        assertThat(HResults.parse("0x803b0013")).isEqualTo(HResults.HCN_E_PORT_ALREADY_EXISTS);
        assertThat(HResults.parse("2151350300")).isEqualTo(HResults.HCN_E_INVALID_JSON_REFERENCE);
        assertThat(HResults.parse("hcn_e_port_already_exists")).isEqualTo(HResults.HCN_E_PORT_ALREADY_EXISTS);
        assertThat(HResults.describe(0x80070490)).isEqualTo("0x80070490 ERROR_NOT_FOUND");
        assertThatThrownBy(() -> HResults.parse("nope")).hasMessage("not an HRESULT: 'nope'");
    }

    @Test
    void exceptionsNameTheirHresultAndOperation() {
        HnsException e = new HnsException(HResults.HCN_E_PORT_ALREADY_EXISTS, "HcnCreateLoadBalancer", "");

        assertThat(e.getMessage()).isEqualTo("HcnCreateLoadBalancer failed: 0x803B0013 HCN_E_PORT_ALREADY_EXISTS");
        assertThat(e.isAlreadyExists()).isTrue();
    }
}
