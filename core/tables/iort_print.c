/* The IORT decode for people: `acpi iort`. */
#include <stdio.h>

#include "iort.h"

static void print_maps(const struct iort *t, const struct iort_node *nd)
{
	for (size_t k = 0; k < nd->nmaps; k++) {
		const struct iort_map *m = &t->map[nd->first_map + k];
		if (m->flags & IORT_MAP_SINGLE)
			printf("      single id 0x%x", m->output_base);
		else
			printf("      ids 0x%x-0x%llx -> 0x%x-0x%llx", m->input_base,
			       (unsigned long long)m->input_base + m->num_ids, m->output_base,
			       (unsigned long long)m->output_base + m->num_ids);
		if (m->target >= 0)
			printf(" %s at 0x%x\n", iort_type_name(t->node[m->target].type), m->output_ref);
		else
			printf(" node 0x%x (not there)\n", m->output_ref);
	}
}

static void print_memory_access(const struct iort_node *nd)
{
	printf(" CCA %u AH 0x%x MAF 0x%x%s%s%s", nd->cca, nd->ah, nd->maf, nd->maf & IORT_MAF_CPM ? " CPM" : "",
	       nd->maf & IORT_MAF_DACS ? " DACS" : "", nd->maf & IORT_MAF_CANWBS ? " CANWBS" : "");
}

void iort_print(const struct iort *t)
{
	printf("  IORT: revision %u, %u nodes at 0x%x\n", t->revision, t->node_count, t->node_array);
	for (size_t i = 0; i < t->n; i++) {
		const struct iort_node *nd = &t->node[i];
		printf("    %s at 0x%03x rev %u id %u:", iort_type_name(nd->type), nd->offset, nd->revision,
		       nd->identifier);
		switch (nd->type) {
		case IORT_ITS_GROUP:
			printf(" %u ITS\n", nd->its_count);
			break;
		case IORT_NAMED_COMPONENT:
			printf(" %s flags 0x%x", nd->name, nd->flags);
			print_memory_access(nd);
			printf(" address limit %u bits\n", nd->addr_limit);
			break;
		case IORT_ROOT_COMPLEX:
			printf(" segment %u", nd->segment);
			print_memory_access(nd);
			printf(" ATS 0x%x%s%s%s address limit %u bits\n", nd->ats, nd->ats & IORT_RC_ATS ? " ATS" : "",
			       nd->ats & IORT_RC_PRI ? " PRI" : "", nd->ats & IORT_RC_PASID_FWD ? " PASID-fwd" : "",
			       nd->addr_limit);
			break;
		case IORT_SMMU_V1V2:
			printf(" base 0x%llx span 0x%llx model %u flags 0x%x, %u context irqs\n",
			       (unsigned long long)nd->base, (unsigned long long)nd->span, nd->model, nd->flags,
			       nd->ctx_irqs);
			break;
		case IORT_SMMU_V3: {
			const struct iort_smmu *s = &t->smmu[nd->smmu];
			printf(" base 0x%llx model %u flags 0x%x%s%s GSIV event %u PRI %u GERR %u sync %u",
			       (unsigned long long)s->base, s->model, s->flags, s->coherent ? " COHACC-override" : "",
			       s->proximity_valid ? " PXM" : "", s->gsiv_event, s->gsiv_pri, s->gsiv_gerr,
			       s->gsiv_sync);
			if (s->have_segment)
				printf(" (segment %u)", s->segment);
			printf("\n");
			break;
		}
		case IORT_PMCG:
			printf(" page 0 0x%llx page 1 0x%llx GSIV %u for node 0x%x\n", (unsigned long long)nd->base,
			       (unsigned long long)nd->page1, nd->gsiv, nd->node_ref);
			break;
		case IORT_RMR:
			printf(" flags 0x%x%s%s, %u ranges\n", nd->flags,
			       nd->flags & IORT_RMR_REMAP_PERMITTED ? " remap-permitted" : "",
			       nd->flags & IORT_RMR_ACCESS_PRIVILEGED ? " privileged" : "", nd->nranges);
			for (size_t r = 0; r < t->nrmr; r++)
				for (size_t k = 0; t->rmr[r].node_offset == nd->offset && k < t->rmr[r].nranges; k++)
					printf("      range 0x%llx +0x%llx%s\n",
					       (unsigned long long)t->rmr[r].range[k].base,
					       (unsigned long long)t->rmr[r].range[k].length,
					       t->rmr[r].range[k].refused ? " (refused)" : "");
			break;
		default:
			printf(nd->type == IORT_NODE_BROKEN ? " too short for its kind, not decoded\n"
							    : " type %u (unknown), not decoded\n",
			       nd->type);
			break;
		}
		print_maps(t, nd);
	}
	for (size_t i = 0; i < t->diag.n; i++)
		printf("    %s: %s\n", t->diag.msg[i].level == DIAG_ERROR ? "error" : "warning", t->diag.msg[i].text);
}
