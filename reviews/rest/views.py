"""Reviews API: the due queue, reviewing and undo, stats, cards, notifications, FSRS parameters
and exam dates."""

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from courses import api as courses_api
from lms.errors import InvalidInput
from lms.openapi import error_codes
from reviews import selectors
from reviews.rest.serializers import (
    CalendarFeedSerializer,
    CardFacesSerializer,
    DueQuerySerializer,
    DueQueueSerializer,
    ExamDateRequestSerializer,
    ExamDateSerializer,
    FitResultSerializer,
    MarkedCountSerializer,
    NotificationListQuerySerializer,
    NotificationSerializer,
    ParametersSerializer,
    ReviewBatchParseSerializer,
    ReviewBatchResultSerializer,
    ReviewBatchSerializer,
    ReviewCreateSerializer,
    ReviewForecastSerializer,
    ReviewResultSerializer,
    ReviewStatsSerializer,
    TrueRetentionSerializer,
    UndoResultSerializer,
)
from reviews.review_times import REVIEWED_AT_IN_FUTURE, REVIEWED_AT_TOO_EARLY
from reviews.services import calendar_feeds, exam_dates, review_batches, reviewing
from reviews.services import notifications as notification_services
from reviews.services import parameters as parameters_services
from reviews.services.review_batches import REVIEW_BATCH_MAX, BatchReview


class DueView(APIView):
    @extend_schema(
        parameters=[DueQuerySerializer],
        responses=DueQueueSerializer,
        summary="Cards due now with the interval each rating would give (with their backs "
        "for an offline session)",
    )
    def get(self, request):
        query = DueQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        queue = selectors.due_queue(
            learner=request.user,
            at=timezone.now(),
            limit=query.validated_data["limit"],
            include_back=query.validated_data.get("include") == "back",
        )
        return Response(DueQueueSerializer.represent(queue))


class ReviewCreateView(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "review"

    @extend_schema(
        request=ReviewCreateSerializer,
        responses={200: ReviewResultSerializer},
        summary="Review a card (replaying a client review id changes nothing)",
        extensions=error_codes(
            {
                400: ["invalid_rating", REVIEWED_AT_IN_FUTURE, REVIEWED_AT_TOO_EARLY],
                404: ["card_not_found"],
                409: ["client_review_id_reused"],
            }
        ),
    )
    def post(self, request):
        serializer = ReviewCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        review = serializer.review()
        result = reviewing.review_record(
            learner=request.user,
            card_id=review.card_id,
            rating=review.rating,
            duration_ms=review.duration_ms,
            client_review_id=review.client_review_id,
            reviewed_at=review.reviewed_at,
        )
        return Response(ReviewResultSerializer(result).data)


def _batch_review_parse(raw) -> BatchReview:
    """One review of a batch, read as POST /reviews/ reads it; InvalidInput names its fields."""
    serializer = ReviewCreateSerializer(data=raw)
    if not serializer.is_valid():
        raise InvalidInput(
            _("This review is not valid; it was not applied."), detail=serializer.errors
        )
    return serializer.review()


class ReviewBatchView(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "review_batch"

    @extend_schema(
        request=ReviewBatchSerializer,
        responses={200: ReviewBatchResultSerializer},
        summary="Apply reviews done offline, in the order sent (each from its own reviewed_at)",
        description=(
            "Each review as for POST /api/v1/reviews/, with reviewed_at. The reviews apply one "
            "by one in the order sent, each in its own transaction and scheduled from its own "
            "time: a rejected review (its reason in error) does not stop the others, and "
            "nothing of it is written. A client review id seen before (in this batch or "
            "earlier) is a duplicate: the original result, nothing changes, so re-sending a "
            f"batch is safe. At most {REVIEW_BATCH_MAX} reviews (400 batch_too_large, nothing "
            "applies); server_time lets the app check its clock."
        ),
        extensions=error_codes({400: ["batch_too_large"]}),
    )
    def post(self, request):
        serializer = ReviewBatchParseSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = review_batches.review_batch_apply(
            learner=request.user,
            reviews=serializer.validated_data["reviews"],
            parse=_batch_review_parse,
        )
        return Response(ReviewBatchResultSerializer(result).data)


class UndoView(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "review"

    @extend_schema(
        request=None,
        responses=UndoResultSerializer,
        summary="Undo my last review",
        extensions=error_codes({409: ["nothing_to_undo", "undo_conflict"]}),
    )
    def post(self, request):
        return Response(UndoResultSerializer(reviewing.review_undo(learner=request.user)).data)


class StatsView(APIView):
    @extend_schema(responses=ReviewStatsSerializer, summary="My review statistics")
    def get(self, request):
        stats = selectors.review_stats(learner=request.user, at=timezone.now())
        return Response(ReviewStatsSerializer(stats).data)


class ForecastView(APIView):
    @extend_schema(
        responses=ReviewForecastSerializer,
        summary="Reviews due on each of my next 30 days (Future Due)",
    )
    def get(self, request):
        forecast = selectors.review_forecast(learner=request.user, at=timezone.now())
        return Response(ReviewForecastSerializer(forecast).data)


class TrueRetentionView(APIView):
    @extend_schema(
        responses=TrueRetentionSerializer,
        summary="My true retention, young and mature cards, per period",
    )
    def get(self, request):
        periods = selectors.true_retention(learner=request.user, at=timezone.now())
        return Response(TrueRetentionSerializer({"periods": periods}).data)


class CardDetailView(APIView):
    @extend_schema(
        responses=CardFacesSerializer,
        summary="Front and back of one of my cards",
        extensions=error_codes({404: ["card_not_found"]}),
    )
    def get(self, request, card_id: int):
        faces = selectors.card_faces(learner_id=request.user.pk, card_id=card_id)
        return Response(CardFacesSerializer(faces).data)


class NotificationListView(generics.ListAPIView):
    serializer_class = NotificationSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("unread", bool, description="Only notifications not read yet.")
        ],
        summary="My notifications, newest first",
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        query = NotificationListQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return selectors.notification_list(
            learner_id=self.request.user.pk, unread_only=query.validated_data["unread"]
        )


class NotificationReadView(APIView):
    @extend_schema(
        request=None,
        responses=NotificationSerializer,
        summary="Mark one of my notifications read",
        extensions=error_codes({404: ["notification_not_found"]}),
    )
    def post(self, request, notification_id: int):
        notification = notification_services.notification_mark_read(
            learner_id=request.user.pk, notification_id=notification_id
        )
        return Response(NotificationSerializer(notification).data)


class NotificationReadAllView(APIView):
    @extend_schema(
        request=None, responses=MarkedCountSerializer, summary="Mark all my notifications read"
    )
    def post(self, request):
        marked = notification_services.notifications_mark_all_read(learner_id=request.user.pk)
        return Response(MarkedCountSerializer({"marked": marked}).data)


# --- FSRS parameters and exam dates ------------------------------------------------------------


class ParametersView(APIView):
    @extend_schema(responses=ParametersSerializer, summary="My FSRS parameters and last fit")
    def get(self, request):
        overview = selectors.parameters_overview(learner_id=request.user.pk)
        return Response(ParametersSerializer(overview).data)


class ParametersOptimizeView(APIView):
    @extend_schema(
        request=None,
        responses=FitResultSerializer,
        summary="Fit my FSRS parameters to my reviews now (adopted only if they predict better)",
        extensions=error_codes({429: ["fit_too_soon"]}),
    )
    def post(self, request):
        report = parameters_services.parameters_fit_requested(
            learner_id=request.user.pk, at=timezone.now()
        )
        overview = selectors.parameters_overview(learner_id=request.user.pk)
        return Response(
            FitResultSerializer({"outcome": report.outcome, "parameters": overview}).data
        )


def _exam_date_body(request, module: str):
    module_id = courses_api.module_by_slug(module).id
    exam_on, set_by, max_days_ahead = selectors.exam_date_for(
        learner_id=request.user.pk, module_id=module_id
    )
    readiness = selectors.exam_readiness(
        learner=request.user, module_id=module_id, at=timezone.now()
    )
    return ExamDateSerializer(
        {
            "exam_on": exam_on,
            "set_by": set_by,
            "max_days_ahead": max_days_ahead,
            "readiness": readiness,
        }
    ).data


class ExamDateView(APIView):
    @extend_schema(
        responses=ExamDateSerializer,
        summary="My exam date and readiness",
        extensions=error_codes({404: ["module_not_found"]}),
    )
    def get(self, request, module: str):
        return Response(_exam_date_body(request, module))

    @extend_schema(
        request=ExamDateRequestSerializer,
        responses=ExamDateSerializer,
        summary="Set or move my exam date (not in the past, not beyond the module's limit)",
        extensions=error_codes(
            {400: ["exam_date_past", "exam_date_too_far"], 404: ["module_not_found"]}
        ),
    )
    def put(self, request, module: str):
        serializer = ExamDateRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        exam_dates.exam_date_set(
            learner=request.user,
            module_slug=module,
            exam_on=serializer.validated_data["exam_on"],
            at=timezone.now(),
        )
        return Response(_exam_date_body(request, module))

    @extend_schema(
        request=None,
        # The answer is the date that now applies (the module's, if it has one) and readiness.
        responses={200: ExamDateSerializer},
        summary="Remove my own exam date",
        extensions=error_codes({404: ["module_not_found"]}),
    )
    def delete(self, request, module: str):
        exam_dates.exam_date_set(
            learner=request.user, module_slug=module, exam_on=None, at=timezone.now()
        )
        return Response(_exam_date_body(request, module))


_CALENDAR_FEED_GONE = (
    'Rotating or revoking it, a password set and "log out everywhere" end the address: it '
    "then answers 410 Gone."
)


class CalendarFeedView(APIView):
    @extend_schema(
        responses=CalendarFeedSerializer,
        summary="My private calendar address",
        description=_CALENDAR_FEED_GONE,
        extensions=error_codes({404: ["calendar_feed_missing"]}),
    )
    def get(self, request):
        feed = selectors.calendar_feed_get(learner=request.user)
        if feed is None:
            raise calendar_feeds.calendar_feed_missing_error()
        return Response(CalendarFeedSerializer(CalendarFeedSerializer.payload(feed)).data)

    @extend_schema(
        request=None,
        responses={201: CalendarFeedSerializer},
        summary="Make my private calendar address (rotate it to replace one)",
        description=_CALENDAR_FEED_GONE,
        extensions=error_codes({409: ["calendar_feed_exists"]}),
    )
    def post(self, request):
        feed = calendar_feeds.calendar_feed_create(learner_id=request.user.pk, replace=False)
        return Response(
            CalendarFeedSerializer(CalendarFeedSerializer.payload(feed)).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="Revoked: the address answers 410")},
        summary="Revoke my private calendar address",
        extensions=error_codes({404: ["calendar_feed_missing"]}),
    )
    def delete(self, request):
        calendar_feeds.calendar_feed_revoke(learner_id=request.user.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CalendarFeedRotateView(APIView):
    @extend_schema(
        request=None,
        responses=CalendarFeedSerializer,
        summary="Replace my private calendar address by a new one (the old one answers 410)",
        extensions=error_codes({404: ["calendar_feed_missing"]}),
    )
    def post(self, request):
        feed = calendar_feeds.calendar_feed_rotate(learner_id=request.user.pk)
        return Response(CalendarFeedSerializer(CalendarFeedSerializer.payload(feed)).data)
